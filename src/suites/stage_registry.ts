/**
 * Every stage declaration of every suite, by name, and the environment their bodies need when re-executed
 * from a finished run (`verify --rederive`): the tokenizer the run recorded, the sweep fixture of its
 * `trajectory` source, the HotpotQA records of its `dataset` source.
 *
 * @module
 */
import { join } from "node:path";
import type { StageRegistry } from "../pipeline/rederive.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { Manifest } from "../store/manifest.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { loadHotpot } from "../data/hotpot_load.ts";
import type { HotpotRecord } from "../data/hotpot_record.ts";
import { sweepFixtureFromBytes } from "./sweep/fixture.ts";
import { STAGES } from "./registry.ts";

export { STAGES } from "./registry.ts";

const byName = new Map(STAGES.map((s) => [s.name, s]));

/** Reads the HotpotQA records of a dataset blob (Parquet by its magic bytes, else official JSON). */
async function recordsOf(store: BlobStore, hash: string): Promise<HotpotRecord[]> {
  const bytes = await store.get(hash);
  const parquet = new TextDecoder().decode(bytes.subarray(0, 4)) === "PAR1";
  const dir = await Deno.makeTempDir({ prefix: "compaction-bench-rederive-" });
  try {
    const path = join(dir, parquet ? "dataset.parquet" : "dataset.json");
    await Deno.writeFile(path, bytes);
    return await loadHotpot(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The registry `verify --rederive` uses. */
export const STAGE_REGISTRY: StageRegistry = {
  stage: (name) => byName.get(name),
  async environment(manifest: Manifest, store: BlobStore) {
    const counter = manifest.tokenizer ? await loadTokenCounter() : undefined;
    const trajectory = manifest.sources["trajectory"];
    const fixture = manifest.suite === "sweep" && trajectory
      ? await sweepFixtureFromBytes(await store.get(trajectory), "the run's trajectory source")
      : undefined;
    let records: Promise<HotpotRecord[]> | undefined;
    const dataset = manifest.sources["dataset"];
    return {
      counter,
      fixture,
      records: () => {
        if (!dataset) return Promise.reject(new Error("the run declares no dataset source"));
        return records ??= recordsOf(store, dataset);
      },
    };
  },
};
