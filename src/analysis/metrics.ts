/**
 * A suite's metrics, declared once in one table that the reports, the stats, `compare` and the help read.
 * @module
 */

export interface MetricSpec {
  name: string;
  label: string;
  direction: "higher" | "lower";
  /** A share in [0, 1] (shown in percentage points) or a mean (shown as it is). */
  kind: "share" | "mean";
  intervals?: boolean;
  paired?: boolean;
  compare?: boolean;
}

/**
 * The names of the shares among `metrics`.
 * @example
 * ```ts
 * shareNames([{ name: "em", label: "EM", direction: "higher", kind: "share" }]).has("em"); // true
 * ```
 */
export function shareNames(metrics: readonly MetricSpec[]): ReadonlySet<string> {
  return new Set(metrics.filter((m) => m.kind === "share").map((m) => m.name));
}
