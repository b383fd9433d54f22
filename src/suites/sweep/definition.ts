/**
 * The sweep suite: a frozen summary plus the decision model's Top-N evidence units, scored by exact fact
 * checks and sandboxed repair checks; with what `verify --rederive` and `compare` need of its runs, its
 * `protocol.json`, and the completion of a run merged from its shards ({@link runSweep} replayed over them).
 * @module
 */
import type { Suite } from "../suite.ts";
import { sweepEngineStage, sweepRankStage, sweepSummaryStage } from "./stages/compress.ts";
import { sweepTrajectoryStage } from "./stages/compress.ts";
import { SWEEP_METRICS, type SweepKindAggregate, sweepMetricsIn, sweepRowValue } from "./aggregate.ts";
import { sweepAnswerStage, sweepContextStage } from "./stages/context.ts";
import { sweepAggregateStage, sweepCeilingsStage, sweepScoreStage } from "./stages/aggregate.ts";
import { sweepReportStage } from "./stages/report.ts";
import { parseJson } from "../../core/json_read.ts";
import { canonicalJson } from "../../store/canonical.ts";
import { ownUsage, sameUsage } from "../answering_check.ts";
import { type SweepFixture, sweepFixtureFromSources } from "./fixture.ts";
import { z } from "zod";
import type { CompareUnits } from "../../report/compare_units.ts";
import { UsageError } from "../../errors.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import { runSweep, type SweepRunOptions } from "./run_suite.ts";
import { answerMerge, replayModels } from "../answer_pipeline.ts";

/** `protocol.json` of a sweep run. */
export function sweepProtocolJson(
  options: SweepRunOptions,
  models: ModelSetup["description"],
  counter: TokenCounter,
  fixture: SweepFixture,
): Record<string, unknown> {
  return {
    suite: "sweep",
    ...options,
    models,
    tokenizer: { name: counter.name, hash: counter.hash },
    fixture: {
      name: fixture.name,
      sha256: fixture.hash,
      units: fixture.units.map((u) => u.id),
      facts: fixture.facts.map((f) => ({ name: f.name, text: f.text })),
      // The payment case's protocol.json as before cases were data; another case also names its pin.
      repair: {
        functionName: fixture.repair.functionName,
        signature: fixture.repair.signature,
        ...fixture.repair.values,
      },
      ...(fixture.hash !== fixture.trajectoryHash
        ? {
          trajectory_sha256: fixture.trajectoryHash,
          checks: fixture.checks.kind === "module" ? fixture.checks.file : fixture.checks.name,
        }
        : {}),
    },
  };
}

const SweepRows = z.array(
  z.object({
    kind: z.string(),
    generation: z.number(),
    answer_index: z.number(),
    status: z.string(),
    input_cap: z.number().nullable().optional(),
    fact_score: z.number(),
    repair_all_passed: z.boolean(),
  }),
);

/** The sweep suite's compare units. */
export const SWEEP_COMPARE_UNITS: CompareUnits<z.infer<typeof SweepRows>[number]> = {
  unit: "generation (answers averaged first)",
  schema: SweepRows,
  unitOf: (r) => `gen=${r.generation}`,
  conditionOf: (r) => (typeof r.input_cap === "number" ? `${r.kind}@${r.input_cap}` : r.kind),
  get metrics(): [string, (r: z.infer<typeof SweepRows>[number]) => number][] {
    return sweepMetricsIn("paired").map((m) => [m.name, (r) => sweepRowValue(m, r)]);
  },
  validity: { valid: (r) => r.status === "ok", noun: "answers" },
};

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
  rederive: {
    async environment(manifest, store) {
      const fixture = manifest.sources["trajectory"]
        ? await sweepFixtureFromSources(manifest.sources, store, "the run")
        : undefined;
      return { fixture };
    },
    compressionStages: [sweepSummaryStage, sweepRankStage],
    answerStages: [sweepAnswerStage],
    // The compression usage a sweep node records: the sum of every summary, ranking and engine node's.
    usageProblems(manifest) {
      const compression = [sweepSummaryStage.name, sweepRankStage.name, sweepEngineStage.name];
      const total = ownUsage(manifest.nodes.filter((n) => compression.includes(n.stage)));
      return manifest.nodes.flatMap((node) => {
        const recorded = (node.params as { compression_usage?: unknown }).compression_usage;
        if (recorded === undefined || !node.stage.startsWith("sweep-") || sameUsage(recorded, total)) {
          return [];
        }
        const message =
          `compression_usage ${canonicalJson(recorded)} is not the sum of the summary, ranking ` +
          `and engine nodes' usage ${canonicalJson(total)}`;
        return [{ node, message }];
      });
    },
    answering: { aggregate: sweepAggregateStage.name, answers: sweepAnswerStage.name },
  },
  // Shards: the sweep replayed over the merged run publishes its files before the run is sealed.
  merge: answerMerge(
    { aggregate: sweepAggregateStage, ceilings: sweepCeilingsStage, report: sweepReportStage },
    async (run, context, counter, analysis) => {
      const { models: description, fixture: fixtureHash, suite: _suite, ...options } = run.header.protocol as
        & SweepRunOptions
        & { models: ModelSetup["description"]; fixture: string; suite: string };
      const fixture = await sweepFixtureFromSources(run.header.sources, run.store, "the shards");
      if (fixture.hash !== fixtureHash) {
        throw new UsageError(`merge: the shards' trajectory source is not the fixture their protocol names`);
      }
      const outcome = await runSweep(context, fixture, options, replayModels(description), counter, analysis);
      return { files: outcome.files, protocol: sweepProtocolJson(options, description, counter, fixture) };
    },
  ),
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
