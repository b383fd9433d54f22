/**
 * Loading a HotpotQA file whichever layout it has (chosen by extension), and hashing a dataset file.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { UsageError } from "../errors.ts";
import type { HotpotRecord } from "./hotpot_record.ts";
import { loadHotpotJson } from "./hotpot_json.ts";
import { loadHotpotParquet } from "./hotpot_parquet.ts";

/**
 * Loads HotpotQA records: `.parquet` → Hugging Face layout, `.json` → official layout. Other extensions,
 * missing files and bad records are {@link UsageError}s naming the file.
 */
export async function loadHotpot(path: string): Promise<HotpotRecord[]> {
  const lower = path.toLowerCase();
  try {
    if (lower.endsWith(".parquet")) return await loadHotpotParquet(path);
    if (lower.endsWith(".json")) return await loadHotpotJson(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new UsageError(`${path}: no such file`);
    throw error;
  }
  throw new UsageError(`${path}: unknown HotpotQA file type (expected .parquet or .json)`);
}

/** SHA-256 (lowercase hex) of a file's bytes, streamed. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path, { read: true });
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}
