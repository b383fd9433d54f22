/**
 * What a report stage needs besides the aggregate for its analysis sections: the published rows
 * (`results.json`) and every context blob the rows name (for the explorer), as stage inputs, so the report
 * descends in the DAG from them; and the options (bootstrap resamples, prices) the runner passes on.
 *
 * @module
 */
import type { BlobStore } from "../store/blob_store.ts";
import type { PriceTable } from "./cost.ts";
import { parseJson } from "../core/json_read.ts";

/** Options of the analysis sections of a report. */
export interface ReportAnalysisOptions {
  /** Bootstrap resamples (default 10,000). */
  bootstrap?: number;
  /** Prices for the cost section; none: no cost section. */
  prices?: PriceTable | null;
}

/** One `context:<hash>` input per context blob hash given (sorted, each once). */
export function contextInputs(hashes: Iterable<string>): Record<string, string> {
  return Object.fromEntries([...new Set(hashes)].sort().map((hash) => [`context:${hash}`, hash]));
}

/** The report stage's inputs and values: the given ones plus `results` and each `context:<hash>`. */
export async function reportAnalysisInputs(
  inputs: Record<string, string>,
  values: Record<string, unknown>,
  resultsHash: string,
  resultsText: string,
  store: BlobStore,
  extra?: { inputs: Record<string, string>; values: Record<string, unknown> },
): Promise<{ inputs: Record<string, string>; values: Record<string, unknown> }> {
  const rows = parseJson(resultsText) as { context_hash?: string | null }[];
  const hashes = [
    ...new Set(rows.map((r) => r.context_hash).filter((h): h is string => typeof h === "string")),
  ]
    .sort();
  const outInputs: Record<string, string> = { ...inputs, ...extra?.inputs, results: resultsHash };
  const outValues: Record<string, unknown> = { ...values, ...extra?.values, results: resultsText };
  for (const hash of hashes) {
    outInputs[`context:${hash}`] = hash;
    outValues[`context:${hash}`] = await store.getJson(hash);
  }
  return { inputs: outInputs, values: outValues };
}
