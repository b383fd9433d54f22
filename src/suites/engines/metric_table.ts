/**
 * engines run's metrics, declared once: `compare` reads this table.
 *
 * @module
 */
import type { MetricSpec } from "../../analysis/metrics.ts";

/** Every metric of an engines run, in the order `compare` lists them. */
export const ENGINES_METRICS = [
  { name: "savings_pct", label: "savings %", direction: "higher", kind: "mean", compare: true },
  { name: "needle_recall", label: "needle recall", direction: "higher", kind: "share", compare: true },
  { name: "qa_recall", label: "QA recall", direction: "higher", kind: "share", compare: true },
  { name: "f1", label: "LoCoMo F1", direction: "higher", kind: "share", compare: true },
  { name: "cold_ms", label: "cold ms", direction: "lower", kind: "mean", compare: true },
  { name: "warm_median_ms", label: "warm median ms", direction: "lower", kind: "mean", compare: true },
] as const satisfies readonly MetricSpec[];
