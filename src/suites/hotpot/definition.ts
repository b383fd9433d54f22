/**
 * The `hotpot run` suite: methods under one answer-input ceiling, scored against gold.
 * @module
 */
import type { Suite } from "../suite.ts";
import { HOTPOT_MERGE } from "./run/merge_publish.ts";
import { HOTPOT_REDERIVATION } from "./rederivation.ts";
import { hotpotEngineStage, hotpotRankStage, hotpotSummaryStage } from "./run/stages/compress.ts";
import type { HotpotMethodAggregate } from "./run/aggregate.ts";
import { hotpotCorpusHeadStage, hotpotQuestionStage } from "./run/stages/question.ts";
import { hotpotAnswerStage, hotpotContextStage } from "./run/stages/context.ts";
import { HOTPOT_COMPARE_UNITS } from "./report/compare_units.ts";
import { hotpotAggregateStage, hotpotCeilingsStage } from "./run/stages/aggregate.ts";
import { hotpotRowsStage, hotpotScoreStage } from "./run/stages/rows.ts";
import { hotpotReportStage } from "./report/stages/report.ts";
import { hotpotWarnings, hypothesisLines } from "./report/report.ts";
import { parseJson } from "../../core/json_read.ts";
import { HOTPOT_METRICS, hotpotMetricsIn } from "./run/metrics.ts";

/** A method's label in a ceiling sweep's aggregate (`jev@2400`; Full and single-ceiling runs: the method). */
const conditionOf = (a: HotpotMethodAggregate & { input_cap?: number | null }) =>
  a.input_cap !== undefined && a.input_cap !== null ? `${a.method}@${a.input_cap}` : a.method;

const pct = (x: number) => (100 * x).toFixed(1).padStart(5);

/** `hotpot run`. */
export const HOTPOT_SUITE: Suite = {
  name: "hotpot",
  command: ["hotpot", "run"],
  title: "hotpot",
  resumable: true,
  stages: [
    hotpotCorpusHeadStage,
    hotpotQuestionStage,
    hotpotRankStage,
    hotpotSummaryStage,
    hotpotEngineStage,
    hotpotContextStage,
    hotpotAnswerStage,
    hotpotScoreStage,
    hotpotRowsStage,
    hotpotAggregateStage,
    hotpotCeilingsStage,
    hotpotReportStage,
  ],
  aggregate: hotpotAggregateStage,
  report: hotpotReportStage,
  compareUnits: HOTPOT_COMPARE_UNITS,
  rederive: HOTPOT_REDERIVATION,
  merge: HOTPOT_MERGE,
  metrics: HOTPOT_METRICS,
  compareMetrics: ({ aggregate }) =>
    new Map((aggregate as HotpotMethodAggregate[]).map((r) => [
      conditionOf(r),
      Object.fromEntries(hotpotMetricsIn("compare").map((m) => [m.name, m.aggregate(r)])),
    ])),
  summary(text) {
    return hotpotSummaryLines(text, { questions: null });
  },
};

/** The lines printed after a hotpot run: warnings, one line per condition, the verdict (at `inputCap`). */
export function hotpotSummaryLines(
  text: string,
  facts: { questions: number | null; inputCap?: number },
): string[] {
  const all = parseJson(text) as (HotpotMethodAggregate & { input_cap?: number | null })[];
  const cap = facts.inputCap ?? all[0]?.input_cap ?? null;
  const primary = all.filter((a) => a.input_cap === undefined || a.input_cap === null || a.input_cap === cap);
  const warnings = hotpotWarnings(primary, facts.questions, cap ?? 0).map((w) => `warning: ${w}`);
  const table = all.map((a) =>
    `${conditionOf(a).padEnd(12)} ${
      hotpotMetricsIn("headline").map((m) => `${m.label} ${pct(m.aggregate(a) ?? 0)}`).join("  ")
    }  valid ${a.valid}/${a.planned}`
  );
  const [claim, ...verdict] = hypothesisLines(primary);
  // A ceiling sweep states its verdict at its first ceiling (as REPORT.md's Hypothesis section does).
  const sweep = all.some((a) => a.input_cap !== undefined && a.input_cap !== null);
  const at = sweep && cap !== null ? [`  at the ${cap}-token ceiling (the sweep's first)`] : [];
  return [...warnings, ...(warnings.length > 0 ? [""] : []), ...table, "", claim, ...at, ...verdict];
}
