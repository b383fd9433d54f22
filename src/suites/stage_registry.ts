/**
 * Every stage declaration of every suite, by name, and the environment their bodies need when re-executed
 * from a finished run (`verify --rederive`): the tokenizer the run recorded, the sweep fixture of its
 * `trajectory` source, the selection candidates and the selected records of its `dataset` source.
 *
 * @module
 */
import { join } from "node:path";
import type { StageRegistry } from "../pipeline/rederive.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { Manifest, Node } from "../store/manifest.ts";
import { canonicalJson } from "../store/canonical.ts";
import { addUsage, emptyUsage, type Usage } from "../core/usage.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { type HotpotDataset, hotpotDatasetFile } from "./hotpot/dataset_file.ts";
import type { SelectionOptions } from "./hotpot/select.ts";
import { sweepFixtureFromBytes } from "./sweep/fixture.ts";
import { STAGES } from "./registry.ts";
import { answeringModelProblems } from "./answering_check.ts";

export { STAGES } from "./registry.ts";

const byName = new Map(STAGES.map((s) => [s.name, s]));

/**
 * Calls `use` with the dataset blob as a HotpotQA file (Parquet by its magic bytes, else official JSON), read
 * in batches from the store's file through a link named with the layout's extension (never read whole).
 */
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
    return await use(hotpotDatasetFile(path, "the run's dataset source"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The provider stages whose outputs follow from their call records alone: their bodies are replayed. */
const ANSWER_STAGES = new Set(["hotpot-answer", "sweep-answer"]);
const COMPRESSION_STAGES = new Set(["hotpot-rank", "hotpot-summary", "sweep-rank", "sweep-summary"]);

/**
 * Of the nodes that produced an answer's context blob (invalid contexts share theirs: null), the answer's own:
 * the one labelled as its context (`answer q=… ans=N` → `context q=…`), else the one whose reason the answer
 * recorded, else the first. Whichever is chosen, an answer that made no call is invalid, so a flip to ok is
 * named.
 */
function contextOf(answer: Node, candidates: readonly Node[]): Node | undefined {
  if (candidates.length <= 1) return candidates[0];
  const label = answer.label.replace(/^answer /, "context ").replace(/ ans=\d+/, "");
  return candidates.find((n) => n.label === label) ??
    candidates.find((n) => n.reason !== undefined && n.reason === answer.reason) ?? candidates[0];
}

/** The usage of `nodes` that did not come from a frozen run (those made their calls there). */
function ownUsage(nodes: readonly Node[]): Usage {
  const total = emptyUsage();
  for (const node of nodes) if (node.reused_from === undefined) addUsage(total, node.usage);
  return total;
}

const sameUsage = (a: unknown, b: Usage) => canonicalJson(a ?? null) === canonicalJson(b);

/**
 * The compression usage an aggregate or report records, against the nodes it counts: in sweep, every summary,
 * ranking and engine node; in hotpot, per method, its summary and engine nodes at that ceiling, plus every
 * ranking when the method ranks (so each method's total is its own nodes' sum, or that plus the rankings').
 */
function compressionUsageProblems(manifest: Manifest): { node: Node; message: string }[] {
  const out: { node: Node; message: string }[] = [];
  const nodes = manifest.nodes;
  const sweepTotal = ownUsage(
    nodes.filter((n) => ["sweep-summary", "sweep-rank", "sweep-engine"].includes(n.stage)),
  );
  const rankings = ownUsage(nodes.filter((n) => n.stage === "hotpot-rank"));
  const aggregates = nodes.filter((n) => n.stage === "hotpot-aggregate");
  for (const node of nodes) {
    const recorded = (node.params as { compression_usage?: unknown }).compression_usage;
    if (recorded === undefined) continue;
    if (node.stage.startsWith("sweep-")) {
      if (!sameUsage(recorded, sweepTotal)) {
        out.push({
          node,
          message:
            `compression_usage ${canonicalJson(recorded)} is not the sum of the summary, ranking and ` +
            `engine nodes' usage ${canonicalJson(sweepTotal)}`,
        });
      }
      continue;
    }
    if (node.stage !== "hotpot-aggregate" || typeof recorded !== "object" || recorded === null) continue;
    const cap = aggregates.length > 1 ? Number(/cap=(\d+)/.exec(node.label)?.[1]) : undefined;
    for (const [method, usage] of Object.entries(recorded)) {
      const own = ownUsage(nodes.filter((n) => {
        const params = n.params as { method?: unknown; input_cap?: unknown };
        return (n.stage === "hotpot-summary" || n.stage === "hotpot-engine") && params.method === method &&
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

/** The registry `verify --rederive` uses. */
export const STAGE_REGISTRY: StageRegistry = {
  stage: (name) => byName.get(name),
  usageProblems: compressionUsageProblems,
  modelProblems: answeringModelProblems,
  replayEnvironment(node, env, models, producers) {
    if (COMPRESSION_STAGES.has(node.stage)) return { ...(env as object), ...models };
    if (!ANSWER_STAGES.has(node.stage)) return undefined;
    // As the answer stage is run: an invalid context makes no call and gives its reason. Invalid contexts
    // share their messages blob (null): the answer's context is the producer whose params agree with its own.
    const context = node.inputs.context === undefined
      ? undefined
      : contextOf(node, producers(node.inputs.context));
    const contextReason = context?.status === "ok" ? null : context?.reason ?? "context invalid";
    return { chat: models.chat, contextReason };
  },
  async environment(manifest: Manifest, store: BlobStore) {
    const counter = manifest.tokenizer ? await loadTokenCounter() : undefined;
    const trajectory = manifest.sources["trajectory"];
    const fixture = manifest.suite === "sweep" && trajectory
      ? await sweepFixtureFromBytes(await store.get(trajectory), "the run's trajectory source")
      : undefined;
    const dataset = manifest.sources["dataset"];
    return {
      counter,
      fixture,
      candidates: (options: SelectionOptions) => {
        if (!dataset) return Promise.reject(new Error("the run declares no dataset source"));
        return withDatasetFile(store, dataset, (file) => file.candidates(options));
      },
      records: (ids: ReadonlySet<string>) => {
        if (!dataset) return Promise.reject(new Error("the run declares no dataset source"));
        return withDatasetFile(store, dataset, (file) => file.records(ids));
      },
    };
  },
};
