/**
 * Sweep aggregation per context kind: answers are averaged within a generation, then generations equally;
 * invalid conditions (over budget, failed calls) count zero and stay in the denominator. And the sweep's
 * metrics, declared once: its report, statistics and `compare` read that table.
 * @module
 */
import type { AnsweringModels } from "../../core/answering_models.ts";
import type { MetricSpec } from "../../analysis/metrics.ts";

/** One answer's row in the sweep's results.json (what the aggregation reads). */
export interface SweepResultRow {
  kind: string;
  generation: number;
  answer_index: number;
  status: "ok" | "invalid";
  reason: string | null;
  context_tokens: number | null;
  within_cap: boolean | null;
  input_tokens: number | null;
  fact_score: number;
  facts: { name: string; passed: boolean }[];
  repair_all_passed: boolean;
  repair: { name: string; passed: boolean; detail: string }[];
  answer_text: string | null;
}

/** The aggregate of one context kind. */
export interface SweepKindAggregate {
  kind: string;
  fact_score: number;
  repair_pass_share: number;
  valid: number;
  planned: number;
  over_budget: number;
  context_tokens_mean: number | null;
  input_tokens: { mean: number | null; total: number };
  /** The models that answered this kind's calls, per role, beside the requested names. */
  models: AnsweringModels;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function generationMeans(rows: readonly SweepResultRow[], pick: (r: SweepResultRow) => number): number {
  return mean([...Map.groupBy(rows, (r) => r.generation).values()].map((gen) => mean(gen.map(pick))));
}

/** Aggregates the rows per kind, in the given kind order. */
export function aggregateSweep(
  rows: readonly SweepResultRow[],
  kinds: readonly string[],
  answeringModels: Record<string, AnsweringModels> = {},
): SweepKindAggregate[] {
  return kinds.map((kind) => {
    const mine = rows.filter((r) => r.kind === kind);
    const inputs = mine.map((r) => r.input_tokens).filter((t): t is number => t !== null);
    const contexts = mine.map((r) => r.context_tokens).filter((t): t is number => t !== null);
    return {
      kind,
      fact_score: generationMeans(mine, (r) => (r.status === "ok" ? r.fact_score : 0)),
      repair_pass_share: generationMeans(mine, (r) => (r.status === "ok" && r.repair_all_passed ? 1 : 0)),
      valid: mine.filter((r) => r.status === "ok").length,
      planned: mine.length,
      over_budget: mine.filter((r) => r.within_cap === false).length,
      context_tokens_mean: contexts.length ? mean(contexts) : null,
      input_tokens: { mean: inputs.length ? mean(inputs) : null, total: inputs.reduce((a, b) => a + b, 0) },
      models: answeringModels[kind] ?? {},
    };
  });
}

/** What a metric reads of one result row (a row of results.json, as stored or parsed). */
export interface SweepMetricRow {
  status: string;
  fact_score: number;
  repair_all_passed: boolean;
}

/** One sweep metric: its declaration and how it is read. */
export interface SweepMetric extends MetricSpec {
  /** Its value in one row, an invalid answer counting zero (needed by `intervals` and `paired`). */
  row?(r: SweepMetricRow): number;
  aggregate(a: SweepKindAggregate): number | null;
  /** A column of the results table and a series of report.html's chart (a share, in percent). */
  table?: boolean;
}

/** Where the two per-answer shares are listed alike: everywhere, with intervals and paired differences. */
const LISTED = { intervals: true, paired: true, compare: true, table: true } as const;

/** Every metric of a sweep run, in the order every listing shows them. */
export const SWEEP_METRICS: SweepMetric[] = [
  {
    name: "fact_score",
    label: "fact score",
    direction: "higher",
    kind: "share",
    ...LISTED,
    row: (r) => (r.status === "ok" ? r.fact_score : 0),
    aggregate: (a) => a.fact_score,
  },
  {
    name: "repair_pass",
    label: "repair pass",
    direction: "higher",
    kind: "share",
    ...LISTED,
    row: (r) => (r.status === "ok" && r.repair_all_passed ? 1 : 0),
    aggregate: (a) => a.repair_pass_share,
  },
  {
    name: "valid",
    label: "valid",
    direction: "higher",
    kind: "mean",
    compare: true,
    aggregate: (a) => a.valid,
  },
  {
    name: "input_tokens_mean",
    label: "input tokens",
    direction: "lower",
    kind: "mean",
    compare: true,
    aggregate: (a) => a.input_tokens.mean,
  },
];

/** The metrics listed where `where` says. */
export function sweepMetricsIn(where: "intervals" | "paired" | "compare" | "table"): SweepMetric[] {
  return SWEEP_METRICS.filter((m) => m[where] === true);
}

/** A metric's value in one row (a metric without a row reader is listed in no per-row place). */
export function sweepRowValue(metric: SweepMetric, r: SweepMetricRow): number {
  if (metric.row === undefined) throw new Error(`metric ${metric.name} has no per-row value`);
  return metric.row(r);
}
