/**
 * A suite's metrics, declared once in one table: the reports, the stats, `compare` and the help read the
 * table instead of naming a suite's metrics (this folder and `src/report/` know no suite).
 *
 * @module
 */

/** One metric of a suite's rows. */
export interface MetricSpec {
  /** Its key in rows, aggregates and `compare` (`em`, `fact_score`). */
  name: string;
  /** Its label in reports, statistics and help (`EM`, `fact score`). */
  label: string;
  /** Which way is better. */
  direction: "higher" | "lower";
  /** A share in [0, 1] (shown in percentage points) or a mean (shown as it is). */
  kind: "share" | "mean";
  /** Given a bootstrap interval in the statistics. */
  intervals?: boolean;
  /** Tested pairwise (paired tests) in the statistics. */
  paired?: boolean;
  /** Listed by `compare`. */
  compare?: boolean;
}

/**
 * The names of the shares among `metrics`.
 *
 * @example
 * ```ts
 * import { shareNames } from "./metrics.ts";
 * shareNames([{ name: "em", label: "EM", direction: "higher", kind: "share" }]).has("em"); // true
 * ```
 */
export function shareNames(metrics: readonly MetricSpec[]): ReadonlySet<string> {
  return new Set(metrics.filter((m) => m.kind === "share").map((m) => m.name));
}
