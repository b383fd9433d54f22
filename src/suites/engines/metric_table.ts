/**
 * engines run's metrics, declared once: `compare` reads this table (its shares, and each engine row's values).
 * @module
 */
import type { MetricSpec } from "../../analysis/metrics.ts";

/** What a metric reads of one engine row of results.json. */
export interface ComparedEngine {
  engine: string;
  budget?: string;
  savings_pct: number | null;
  needles: { recall: number | null };
  qa: { recall: number | null } | null;
  probes?: { f1?: number } | null;
  conversation?: { sample: number; sample_id: string | null };
  latency_ms: { cold: number | null; warm_median: number | null };
}

/** One engines metric: its declaration and its value in an engine row (undefined: the row has none). */
export interface EnginesMetric extends MetricSpec {
  value(e: ComparedEngine): number | null | undefined;
}

function metric(
  name: string,
  label: string,
  direction: "higher" | "lower",
  kind: "share" | "mean",
  value: EnginesMetric["value"],
): EnginesMetric {
  return { name, label, direction, kind, compare: true, value };
}

/** Every metric of an engines run, in the order `compare` lists them. */
export const ENGINES_METRICS: EnginesMetric[] = [
  metric("savings_pct", "savings %", "higher", "mean", (e) => e.savings_pct),
  metric("needle_recall", "needle recall", "higher", "share", (e) => e.needles.recall),
  metric("qa_recall", "QA recall", "higher", "share", (e) => e.qa?.recall ?? null),
  // LoCoMo's answer F1 of the row's LoCoMo questions, when it has some.
  metric("f1", "LoCoMo F1", "higher", "share", (e) => e.probes?.f1),
  metric("cold_ms", "cold ms", "lower", "mean", (e) => e.latency_ms.cold),
  metric("warm_median_ms", "warm median ms", "lower", "mean", (e) => e.latency_ms.warm_median),
];
