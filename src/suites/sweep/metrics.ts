/**
 * sweep run's metrics, declared once: its report, statistics and `compare` read this table.
 * @module
 */
import type { MetricSpec } from "../../analysis/metrics.ts";
import type { SweepKindAggregate } from "./aggregate.ts";

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
  /** Its value in a context kind's aggregate. */
  aggregate(a: SweepKindAggregate): number | null;
  /** A column of the results table and a series of report.html's chart (a share, in percent). */
  table?: boolean;
}

/** Every metric of a sweep run, in the order every listing shows them. */
export const SWEEP_METRICS: SweepMetric[] = [
  {
    name: "fact_score",
    label: "fact score",
    direction: "higher",
    kind: "share",
    intervals: true,
    paired: true,
    compare: true,
    table: true,
    row: (r) => (r.status === "ok" ? r.fact_score : 0),
    aggregate: (a) => a.fact_score,
  },
  {
    name: "repair_pass",
    label: "repair pass",
    direction: "higher",
    kind: "share",
    intervals: true,
    paired: true,
    compare: true,
    table: true,
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
