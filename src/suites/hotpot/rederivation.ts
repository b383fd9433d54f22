/**
 * What `verify --rederive` needs of hotpot runs: the `dataset` source's candidates and records, the replayed
 * stages, and the check of each aggregate's compression usage.
 * @module
 */
import { join } from "node:path";
import type { BlobStore } from "../../store/blob_store.ts";
import type { Manifest, Node } from "../../store/manifest.ts";
import { canonicalJson } from "../../store/canonical.ts";
import { addUsage } from "../../core/usage.ts";
import type { SuiteRederivation } from "../suite.ts";
import { ownUsage, sameUsage } from "../answering_check.ts";
import { hotpotAnswerStage } from "./run/stages/context.ts";
import type { HotpotDataset } from "./collect/dataset_file.ts";
import type { SelectionOptions } from "./collect/select.ts";
import { hotpotEngineStage, hotpotRankStage, hotpotSummaryStage } from "./run/stages/compress.ts";
import { hotpotAggregateStage } from "./run/stages/aggregate.ts";

/** Calls `use` with the dataset blob as a HotpotQA file, via a link with its layout's extension. */
async function withDatasetFile<T>(
  store: BlobStore,
  hash: string,
  use: (dataset: HotpotDataset) => Promise<T>,
): Promise<T> {
  const blob = store.pathOf(hash);
  const magic = new Uint8Array(4);
  {
    using file = await Deno.open(blob, { read: true });
    await file.read(magic);
  }
  const parquet = new TextDecoder().decode(magic) === "PAR1";
  const dir = await Deno.makeTempDir({ prefix: "compaction-bench-rederive-" });
  try {
    const path = join(dir, parquet ? "dataset.parquet" : "dataset.json");
    await Deno.symlink(blob, path);
    // Imported here: a run (which declares this suite's re-derivation) never loads the dataset readers.
    const { hotpotDatasetFile } = await import("./collect/dataset_file.ts");
    return await use(hotpotDatasetFile(path, "the run's dataset source"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The selection candidates and selected records of the run's `dataset` source (rejecting without one). */
function datasetEnvironment(manifest: Manifest, store: BlobStore): Promise<Record<string, unknown>> {
  const dataset = manifest.sources["dataset"];
  return Promise.resolve({
    candidates: (options: SelectionOptions) => {
      if (!dataset) return Promise.reject(new Error("the run declares no dataset source"));
      return withDatasetFile(store, dataset, (file) => file.candidates(options));
    },
    records: (ids: ReadonlySet<string>) => {
      if (!dataset) return Promise.reject(new Error("the run declares no dataset source"));
      return withDatasetFile(store, dataset, (file) => file.records(ids));
    },
  });
}

/** Each aggregate's compression usage against its summary/engine nodes (plus rankings if it ranks). */
function compressionUsageProblems(manifest: Manifest): { node: Node; message: string }[] {
  const out: { node: Node; message: string }[] = [];
  const nodes = manifest.nodes;
  const rankings = ownUsage(nodes.filter((n) => n.stage === hotpotRankStage.name));
  const aggregates = nodes.filter((n) => n.stage === hotpotAggregateStage.name);
  for (const node of aggregates) {
    const recorded = (node.params as { compression_usage?: unknown }).compression_usage;
    if (recorded === undefined || typeof recorded !== "object" || recorded === null) continue;
    const cap = aggregates.length > 1 ? Number(/cap=(\d+)/.exec(node.label)?.[1]) : undefined;
    for (const [method, usage] of Object.entries(recorded)) {
      const own = ownUsage(nodes.filter((n) => {
        const params = n.params as { method?: unknown; input_cap?: unknown };
        return (n.stage === hotpotSummaryStage.name || n.stage === hotpotEngineStage.name) &&
          params.method === method &&
          (cap === undefined || params.input_cap === cap);
      }));
      const withRankings = addUsage({ ...own }, rankings);
      if (!sameUsage(usage, own) && !sameUsage(usage, withRankings)) {
        out.push({
          node,
          message:
            `compression_usage of ${method} ${canonicalJson(usage)} is neither its summary and engine ` +
            `nodes' usage ${canonicalJson(own)} nor that with the rankings' ${canonicalJson(withRankings)}`,
        });
      }
    }
  }
  return out;
}

/** `hotpot collect`: its select and corpus stages read the run's dataset source. */
export const HOTPOT_COLLECT_REDERIVATION: SuiteRederivation = { environment: datasetEnvironment };

/** `hotpot run`. */
export const HOTPOT_REDERIVATION: SuiteRederivation = {
  environment: datasetEnvironment,
  compressionStages: [hotpotRankStage, hotpotSummaryStage],
  answerStages: [hotpotAnswerStage],
  usageProblems: compressionUsageProblems,
  answering: { aggregate: hotpotAggregateStage.name, answers: hotpotAnswerStage.name },
};
