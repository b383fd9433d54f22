/**
 * sweep run's metrics, declared once: `compare` reads this table.
 *
 * @module
 */
import type { MetricSpec } from "../../analysis/metrics.ts";

/** Every metric of a sweep run, in the order `compare` lists them. */
export const SWEEP_METRICS = [
  { name: "fact_score", label: "fact score", direction: "higher", kind: "share", compare: true },
  { name: "repair_pass", label: "repair pass", direction: "higher", kind: "share", compare: true },
  { name: "valid", label: "valid", direction: "higher", kind: "mean", compare: true },
  { name: "input_tokens_mean", label: "input tokens", direction: "lower", kind: "mean", compare: true },
] as const satisfies readonly MetricSpec[];
