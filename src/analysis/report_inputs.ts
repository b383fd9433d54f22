/**
 * What a report stage needs besides the aggregate: every context blob the rows name, as inputs, and options.
 * @module
 */
import type { PriceTable } from "./cost.ts";

/** Options of the analysis sections of a report. */
export interface ReportAnalysisOptions {
  bootstrap?: number;
  prices?: PriceTable | null;
}

/** One `context:<hash>` input per context blob hash given (sorted, each once). */
export function contextInputs(hashes: Iterable<string>): Record<string, string> {
  return Object.fromEntries([...new Set(hashes)].sort().map((hash) => [`context:${hash}`, hash]));
}
