/**
 * The `hotpot run` suite: methods under one answer-input ceiling, scored against gold; a run merged from its
 * shards is completed by {@link runHotpot} replaying the merged nodes (no model is called).
 * @module
 */
import type { Suite } from "../suite.ts";
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
import { parseJson, parseJsonBytes } from "../../core/json_read.ts";
import { HOTPOT_METRICS, hotpotMetricsIn } from "./run/metrics.ts";
import { UsageError } from "../../errors.ts";
import { sha256Hex } from "../../store/hash.ts";
import type { ModelSetup } from "../model_setup.ts";
import { answerMerge, replayModels } from "../answer_pipeline.ts";
import { CorpusSchema } from "./corpus.ts";
import { type HotpotRunOptions, runHotpot } from "./run/run_suite.ts";

type HotpotProtocol = HotpotRunOptions & { models: ModelSetup["description"]; suite: string };

/** `hotpot run` shards: replayed and published as a whole run is (answer_pipeline.ts answerMerge). */
export const HOTPOT_MERGE = answerMerge(
  { aggregate: hotpotAggregateStage, ceilings: hotpotCeilingsStage, report: hotpotReportStage },
  async (run, context, counter, analysis) => {
    const bytes = await run.store.get(run.header.sources.corpus);
    const parsed = CorpusSchema.safeParse(parseJsonBytes(bytes));
    if (!parsed.success) throw new UsageError(`merge: the shards' corpus is not a valid corpus`);
    const { models: description, suite: _suite, ...runOptions } = run.header.protocol as HotpotProtocol;
    // The merged run holds every shard's questions: no shard.
    const outcome = await runHotpot(
      context,
      undefined,
      runOptions,
      replayModels(description),
      counter,
      analysis,
    );
    const protocol = {
      suite: "hotpot",
      ...runOptions,
      models: description,
      tokenizer: { name: counter.name, hash: counter.hash },
      corpus_sha256: sha256Hex(bytes),
      dataset_sha256: parsed.data.dataset.sha256,
    };
    return { files: outcome.files, protocol, write: { "corpus.json": bytes } };
  },
);

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
