/**
 * Writes the hotpot demo data: fixtures/hotpot/demo.parquet (Hugging Face layout) and
 * fixtures/hotpot/demo.json (official layout), 48 generated records (24 bridge + 24 comparison) from
 * {@link DEMO_DATA_SEED}. Deterministic: running it again rewrites identical bytes.
 *
 * Usage: deno run --allow-read --allow-write scripts/gen_hotpot_fixtures.ts [OUT_DIR]
 *
 * @module
 */
import { join } from "node:path";
import { DEMO_DATA_SEED, generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import { toOfficialHotpotJson } from "../src/data/hotpot_json.ts";
import { writeHotpotParquet } from "../src/data/hotpot_parquet_write.ts";
import { assetPath } from "../src/assets.ts";

/** Number of demo records written. */
export const DEMO_RECORD_COUNT = 48;

/** Writes both demo files into `outDir`; returns their paths. */
export async function writeDemoFixtures(outDir: string): Promise<{ parquet: string; json: string }> {
  const records = generateHotpotRecords(DEMO_RECORD_COUNT, DEMO_DATA_SEED);
  await Deno.mkdir(outDir, { recursive: true });
  const parquet = join(outDir, "demo.parquet");
  const json = join(outDir, "demo.json");
  await writeHotpotParquet(records, parquet);
  await Deno.writeTextFile(json, JSON.stringify(toOfficialHotpotJson(records), null, 1) + "\n");
  return { parquet, json };
}

if (import.meta.main) {
  const out = await writeDemoFixtures(Deno.args[0] ?? assetPath("fixtures/hotpot"));
  console.log(`wrote ${out.parquet} and ${out.json}`);
}
