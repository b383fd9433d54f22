/**
 * hotpot run's metrics, declared once: the reports, stats, `compare` and the printed summary read this table.
 * Adding a metric: the scorer computes it (`scoring.ts`), one row here lists it.
 *
 * @module
 */
import type { MetricSpec } from "../../../analysis/metrics.ts";
import type { HotpotMethodAggregate } from "./aggregate.ts";
import type { HotpotMetrics } from "./scoring.ts";

/** What a metric reads of one result row (a row of results.json, as stored or parsed). */
export interface HotpotMetricRow {
  status: string;
  metrics: Partial<Record<string, number>>;
  sp_survival?: number | null;
}

/**
 * One hotpot metric: its declaration, how it is read (`row`: an invalid condition counts zero; needed by
 * `intervals`, `paired`, `units`) and where it is listed (`table`: the results table; `chart`: report.html's
 * score chart, needs `intervals`; `units`: per-question differences in `compare`; `headline`: the printed line).
 */
export interface HotpotMetric extends MetricSpec {
  row?(r: HotpotMetricRow): number;
  aggregate(a: HotpotMethodAggregate): number | null;
  table?: boolean;
  chart?: boolean;
  units?: boolean;
  headline?: boolean;
}

type Listing = Omit<HotpotMetric, "name" | "row" | "aggregate" | "direction" | "kind">;

/** Its row reader (absent: a metric of the aggregate only, which no per-question listing names). */
export function rowValue(metric: HotpotMetric, r: HotpotMetricRow): number {
  if (metric.row === undefined) throw new Error(`metric ${metric.name} has no per-row value`);
  return metric.row(r);
}

/**
 * A share the scorer computes per answer (`metrics[name]` of a row, averaged in the aggregate), listed where
 * `listing` says.
 *
 * @example
 * ```ts
 * import { HOTPOT_METRICS, scoredMetric } from "./metrics.ts";
 * HOTPOT_METRICS.push(scoredMetric("recall", "answer recall", { table: true, intervals: true }));
 * ```
 */
export function scoredMetric(
  name: keyof HotpotMetrics,
  label: string,
  listing: Omit<Listing, "label"> = {},
): HotpotMetric {
  return {
    name,
    label,
    direction: "higher",
    kind: "share",
    row: (r) => (r.status === "ok" ? r.metrics[name] ?? 0 : 0),
    aggregate: (a) => a.metrics[name],
    ...listing,
  };
}

const everywhere = { table: true, intervals: true, paired: true, compare: true, units: true } as const;

/** Every metric of a hotpot run, in the order every listing shows them. */
export const HOTPOT_METRICS: HotpotMetric[] = [
  scoredMetric("em", "EM", { ...everywhere, chart: true, headline: true }),
  scoredMetric("f1", "F1", { ...everywhere, chart: true, headline: true }),
  scoredMetric("sp_em", "SP EM", { table: true }),
  scoredMetric("sp_f1", "SP F1", { table: true, intervals: true, compare: true }),
  scoredMetric("joint_em", "joint EM", { table: true, intervals: true }),
  scoredMetric("joint_f1", "joint F1", { ...everywhere, chart: true, headline: true }),
  {
    name: "gold_sp_kept",
    label: "gold SP kept",
    direction: "higher",
    kind: "share",
    row: (r) => (r.status === "ok" ? r.sp_survival ?? 0 : 0),
    aggregate: (a) => a.sp_survival,
    table: true,
    intervals: true,
    chart: true,
    compare: true,
    units: true,
  },
  {
    name: "valid",
    label: "valid",
    direction: "higher",
    kind: "mean",
    row: (r) => (r.status === "ok" ? 1 : 0),
    aggregate: (a) => a.valid,
    compare: true,
  },
  {
    name: "input_tokens_mean",
    label: "input tokens",
    direction: "lower",
    kind: "mean",
    aggregate: (a) => a.input_tokens.mean,
    compare: true,
  },
];

/** The metrics of `metrics` listed where `where` says. */
export function hotpotMetricsIn(
  where: "table" | "chart" | "intervals" | "paired" | "compare" | "units" | "headline",
  metrics: readonly HotpotMetric[] = HOTPOT_METRICS,
): HotpotMetric[] {
  return metrics.filter((m) => m[where] === true);
}

/** The metric named `name` (undefined when none is). */
export function hotpotMetric(name: string): HotpotMetric | undefined {
  return HOTPOT_METRICS.find((m) => m.name === name);
}
