/**
 * 95% bootstrap intervals of the engines results: needle recall over needles, QA and probe recall over
 * questions (the pooled share of facts found, recomputed per resample), warm latency over repeats.
 * @module
 */
import {
  bootstrapMean,
  bootstrapRatio,
  DEFAULT_RESAMPLES,
  DEFAULT_STATS_SEED,
  type Interval,
} from "../../analysis/bootstrap.ts";
import { type Cell, markdownTable } from "../../core/markdown_table.ts";
import { formatInterval, formatPlainInterval } from "../../analysis/format.ts";
import type { LocomoStats } from "./locomo_report.ts";

/** The QA fields this module reads. */
export interface QaLike {
  total: number;
  correct: number;
  answers?: readonly { facts_found?: number; facts_total?: number; correct: boolean }[];
}

/** The fields of an engine result this module reads. */
export interface EngineResultLike {
  engine: string;
  budget?: string;
  budget_tokens?: number;
  status: string;
  needles: { total: number; found: number };
  qa: QaLike | null;
  probes?: QaLike | null;
  recovery?: { qa: QaLike | null; probes: QaLike | null } | null;
  latency_ms: { warm: number[] };
  compress_ms?: { warm: number[]; cold: number | null } | null;
  timing?: string;
}

/** The warm times an interval is drawn over: the engine's own compress times where known, else the round trip. */
function warmTimes(r: EngineResultLike): number[] {
  return r.compress_ms && r.timing !== "one-shot" && r.compress_ms.warm.length > 0
    ? r.compress_ms.warm
    : r.latency_ms.warm;
}

/** Intervals of one engine (at one budget). */
export interface EngineIntervals {
  engine: string;
  budget: string | null;
  needle_recall: Interval | null;
  qa_recall: Interval | null;
  probe_recall: Interval | null;
  /** For an engine with recall tools only. */
  qa_recall_recovery?: Interval | null;
  probe_recall_recovery?: Interval | null;
  warm_latency_ms: Interval | null;
}

/** Intervals of an engines run. */
export interface EnginesStats {
  resamples: number;
  seed: string;
  engines: EngineIntervals[];
  /** When some row was scored by LoCoMo's answer F1. */
  locomo?: LocomoStats;
}

function shares(correct: number, total: number): number[] {
  return Array.from({ length: total }, (_, i) => (i < correct ? 1 : 0));
}

/** The pooled fact recall with its interval over questions; without per-question facts, the share correct. */
function qaInterval(qa: QaLike, options: { resamples: number; seed: string }): Interval | null {
  const answers = qa.answers;
  if (answers && answers.length > 0 && answers.every((a) => a.facts_total !== undefined)) {
    const interval = bootstrapRatio(
      answers.map((a) => a.facts_found ?? 0),
      answers.map((a) => a.facts_total!),
      options,
    );
    return Number.isFinite(interval.mean) ? interval : null;
  }
  return qa.total > 0 ? bootstrapMean(shares(qa.correct, qa.total), options) : null;
}

/** Computes the engines intervals (null where an engine measured nothing). */
export function enginesStats(
  results: readonly EngineResultLike[],
  options: { resamples?: number; seed?: string } = {},
): EnginesStats {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_STATS_SEED;
  const ci = (values: number[]) => (values.length > 0 ? bootstrapMean(values, { resamples, seed }) : null);
  const qa = (r: EngineResultLike, summary: QaLike | null | undefined) =>
    r.status === "ok" && summary ? qaInterval(summary, { resamples, seed }) : null;
  return {
    resamples,
    seed,
    engines: results.map((r) => ({
      engine: r.engine,
      budget: r.budget ?? (r.budget_tokens !== undefined ? String(r.budget_tokens) : null),
      needle_recall: r.status === "ok" ? ci(shares(r.needles.found, r.needles.total)) : null,
      qa_recall: qa(r, r.qa),
      probe_recall: qa(r, r.probes),
      warm_latency_ms: r.status === "ok" ? ci(warmTimes(r)) : null,
      ...(r.recovery
        ? { qa_recall_recovery: qa(r, r.recovery.qa), probe_recall_recovery: qa(r, r.recovery.probes) }
        : {}),
    })),
  };
}

const ENGINES_CI_HEADERS = [
  ...["engine", "budget", "needle recall (95% CI)", "QA recall (95% CI)", "probe recall (95% CI)"],
  "warm compress mean ms (95% CI)",
];

function hasRecovery(stats: EnginesStats): boolean {
  return stats.engines.some((e) => e.qa_recall_recovery !== undefined);
}

/** Headers of the engines interval table of `stats` (+recovery columns when some engine has them). */
export function enginesCiHeaders(stats: EnginesStats): string[] {
  return hasRecovery(stats)
    ? [...ENGINES_CI_HEADERS, "QA +recovery (95% CI)", "probes +recovery (95% CI)"]
    : ENGINES_CI_HEADERS;
}

/** Rows of the engines interval table. */
export function enginesIntervalRows(stats: EnginesStats): Cell[][] {
  const recovery = hasRecovery(stats);
  const share = (i: Interval | null | undefined) => i ? formatInterval(i) : null;
  return stats.engines.map((e) => [
    e.engine,
    e.budget,
    share(e.needle_recall),
    share(e.qa_recall),
    share(e.probe_recall),
    e.warm_latency_ms ? formatPlainInterval(e.warm_latency_ms, 1) : null,
    ...(recovery ? [share(e.qa_recall_recovery), share(e.probe_recall_recovery)] : []),
  ]);
}

/** What the engines intervals are. */
export function enginesStatsNote(stats: EnginesStats): string {
  return `95% CI: percentile bootstrap (${stats.resamples.toLocaleString("en-US")} resamples, seed ` +
    `${stats.seed}) over the needles (recall), the questions (QA and probe recall: the pooled share of ` +
    `expected facts found, recomputed on each resample of questions; +recovery likewise) and the warm ` +
    `repeats (latency: the engine's own compress time, or the round trip of a one-shot engine; warm ` +
    `calls whose model calls were retried are left out). Recall in percent. Few needles or repeats give wide ` +
    `intervals; n/a where nothing was measured.`;
}

/** The Markdown section. */
export function enginesStatsMarkdown(stats: EnginesStats): string {
  return `
## 95% CI

${enginesStatsNote(stats)}

${markdownTable(enginesCiHeaders(stats), enginesIntervalRows(stats))}
`;
}
