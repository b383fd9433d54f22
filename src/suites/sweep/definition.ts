/**
 * The sweep suite: a frozen summary plus the decision model's Top-N evidence units, scored by exact fact
 * checks and sandboxed repair checks.
 * @module
 */
import type { Suite } from "../suite.ts";
import { SWEEP_MERGE } from "./publish.ts";
import { SWEEP_REDERIVATION } from "./rederivation.ts";
import { sweepAnswerStage } from "./stages/answer.ts";
import { sweepRankStage, sweepSummaryStage } from "./stages/compress.ts";
import type { SweepKindAggregate } from "./aggregate.ts";
import { sweepTrajectoryStage } from "./stages/trajectory.ts";
import { sweepContextStage } from "./stages/context.ts";
import { sweepEngineStage } from "./stages/engine.ts";
import { SWEEP_COMPARE_UNITS } from "./compare_units.ts";
import { sweepScoreStage } from "./stages/score.ts";
import { sweepAggregateStage } from "./stages/aggregate.ts";
import { sweepReportStage } from "./stages/report.ts";
import { sweepCeilingsStage } from "./stages/ceilings.ts";
import { parseJson } from "../../core/json_read.ts";
import { SWEEP_METRICS, sweepMetricsIn } from "./metrics.ts";

const pct = (x: number) => (100 * x).toFixed(1).padStart(5);

/** A kind's label in a ceiling sweep's aggregate (`S+Top2@2400`; Full and single-ceiling runs: the kind). */
const conditionOf = (a: SweepKindAggregate & { input_cap?: number | null }) =>
  typeof a.input_cap === "number" ? `${a.kind}@${a.input_cap}` : a.kind;

/** `sweep run`. */
export const SWEEP_SUITE: Suite = {
  name: "sweep",
  command: ["sweep", "run"],
  title: "sweep",
  resumable: true,
  stages: [
    sweepTrajectoryStage,
    sweepSummaryStage,
    sweepRankStage,
    sweepEngineStage,
    sweepContextStage,
    sweepAnswerStage,
    sweepScoreStage,
    sweepAggregateStage,
    sweepCeilingsStage,
    sweepReportStage,
  ],
  aggregate: sweepAggregateStage,
  report: sweepReportStage,
  compareUnits: SWEEP_COMPARE_UNITS,
  rederive: SWEEP_REDERIVATION,
  merge: SWEEP_MERGE,
  metrics: SWEEP_METRICS,
  compareMetrics: ({ aggregate }) =>
    new Map((aggregate as SweepKindAggregate[]).map((r) => [
      conditionOf(r),
      Object.fromEntries(sweepMetricsIn("compare").map((m) => [m.name, m.aggregate(r)])),
    ])),
  checkFrozen(frozen, protocol) {
    const summaries = frozen.nodes.filter((n) => n.stage === sweepSummaryStage.name);
    const generations = new Set(summaries.map((n) => (n.params as { generation?: number }).generation));
    if (generations.size !== protocol.compressions) {
      return `--compressions ${protocol.compressions} differs from the ${generations.size} frozen summary ` +
        `generation(s)`;
    }
    return null;
  },
  summary(text) {
    return (parseJson(text) as SweepKindAggregate[]).map((a) =>
      `${conditionOf(a).padEnd(8)} facts ${pct(a.fact_score)}  repair ${pct(a.repair_pass_share)}  ` +
      `valid ${a.valid}/${a.planned}`
    );
  },
};
