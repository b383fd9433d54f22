/**
 * Loading a HotpotQA file whichever layout it has (chosen by extension).
 * @module
 */
import { UsageError } from "../errors.ts";
import { subjectOf } from "../fs_input.ts";
import type { HotpotRecord } from "./hotpot_record.ts";
import { loadHotpotJson } from "./hotpot_json.ts";
import { hotpotParquetBatches } from "./hotpot_parquet.ts";

/** Loads HotpotQA records (`.parquet`: Hugging Face layout, `.json`: official); problems are {@link UsageError}s. */
export async function loadHotpot(path: string, option?: string): Promise<HotpotRecord[]> {
  return (await Array.fromAsync(hotpotRecordBatches(path, option))).flat();
}

/** HotpotQA records in file order, in batches (a Parquet file's row groups in slices; JSON as one batch). */
export async function* hotpotRecordBatches(path: string, option?: string): AsyncGenerator<HotpotRecord[]> {
  const lower = path.toLowerCase();
  if (lower.endsWith(".parquet")) yield* hotpotParquetBatches(path, option);
  else if (lower.endsWith(".json")) yield await loadHotpotJson(path, option);
  else {
    throw new UsageError(
      `${subjectOf(path, option)}: unknown HotpotQA file type (expected .parquet or .json)`,
    );
  }
}
