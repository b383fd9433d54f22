/**
 * hotpot run's metrics, declared once: the statistics, `compare` and the suite's help read this table.
 *
 * @module
 */
import type { MetricSpec } from "../../analysis/metrics.ts";

/** Every metric of a hotpot run, in the order the statistics and `compare` list them. */
export const HOTPOT_METRICS = [
  {
    name: "em",
    label: "EM",
    direction: "higher",
    kind: "share",
    intervals: true,
    paired: true,
    compare: true,
  },
  {
    name: "f1",
    label: "F1",
    direction: "higher",
    kind: "share",
    intervals: true,
    paired: true,
    compare: true,
  },
  { name: "sp_f1", label: "SP F1", direction: "higher", kind: "share", intervals: true, compare: true },
  { name: "joint_em", label: "joint EM", direction: "higher", kind: "share", intervals: true },
  {
    name: "joint_f1",
    label: "joint F1",
    direction: "higher",
    kind: "share",
    intervals: true,
    paired: true,
    compare: true,
  },
  {
    name: "gold_sp_kept",
    label: "gold SP kept",
    direction: "higher",
    kind: "share",
    intervals: true,
    compare: true,
  },
  { name: "valid", label: "valid", direction: "higher", kind: "mean", compare: true },
  { name: "input_tokens_mean", label: "input tokens", direction: "lower", kind: "mean", compare: true },
] as const satisfies readonly MetricSpec[];
