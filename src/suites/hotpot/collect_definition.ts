/**
 * The `hotpot collect` suite and its merge, which replays the collection over the shards' nodes (apart from
 * `definition.ts`: a run never loads the collection side).
 * @module
 */
import type { Suite, SuiteMerge } from "../suite.ts";
import { HOTPOT_COLLECT_REDERIVATION } from "./rederivation.ts";
import { hotpotCollectStage } from "./collect/stages/collect.ts";
import { hotpotSelectStage } from "./collect/stages/select.ts";
import { hotpotCorpusStage } from "./collect/stages/corpus.ts";
import { extname, join } from "node:path";
import { UsageError } from "../../errors.ts";
import type { ChatModel } from "../../models/types.ts";
import { Executor } from "../../pipeline/executor.ts";
import { bindRunHeader } from "../published_json_stage.ts";
import { Progress } from "../../pipeline/progress.ts";
import { sha256Hex } from "../../store/hash.ts";
import type { RunDir } from "../../store/run_dir.ts";
import type { RunContext } from "../run_lifecycle.ts";
import { collectCorpus, type CollectMode } from "./collect/collect_suite.ts";
import { hotpotDatasetFile } from "./collect/dataset_file.ts";
import type { SelectionOptions } from "./collect/select.ts";
import { runHeaderStage } from "../../pipeline/run_header.ts";

/** The name corpus.json records for the embedded demo dataset (as `hotpot collect` does). */
const EMBEDDED_DATASET_LABEL = "embedded:fixtures/hotpot/demo.parquet";

/** The params every collect node of one collection shares (besides the question id). */
interface CollectParams {
  mode?: string;
  model?: string;
  agent?: string;
  agent_system_prompt?: string;
}

/** A chat model that refuses every call: a replay takes every collect node from the journal. */
function refusingChat(model: string): ChatModel {
  return {
    model,
    complete: () => {
      throw new Error("merge: a replayed collection asked the chat model; a collect node is missing");
    },
  };
}

/** The collection mode as the shards' collect nodes recorded it (only its key-relevant fields matter). */
async function replayMode(run: RunDir, protocolMode: CollectMode["kind"]): Promise<CollectMode> {
  let params: CollectParams = {};
  for await (const node of run.readNodes()) {
    if (node.stage === hotpotCollectStage.name) {
      params = node.params as CollectParams;
      break;
    }
  }
  if (params.mode !== undefined && params.mode !== protocolMode) {
    throw new UsageError(
      `merge: the shards' collect nodes say mode ${params.mode} but their protocol ${protocolMode}`,
    );
  }
  if (protocolMode === "live") {
    const model = params.model ?? "";
    return { kind: "live", chat: refusingChat(model), model };
  }
  if (protocolMode === "agent") {
    return {
      kind: "agent",
      command: params.agent ?? "",
      argv: [],
      timeoutMs: 0,
      passedEnv: {},
      ...(params.agent_system_prompt !== undefined ? { systemPrompt: params.agent_system_prompt } : {}),
    };
  }
  return { kind: protocolMode };
}

/** The `--dataset` the first shard was given (invocation's `shard_options`), or the embedded data's name. */
function datasetLabel(run: RunDir): string {
  const options = run.header.invocation.options as { shard_options?: { dataset?: unknown } } | null;
  const given = options?.shard_options?.dataset;
  return typeof given === "string" ? given : EMBEDDED_DATASET_LABEL;
}

/** Replays the collection over the merged run and writes selection.json and corpus.json into it. */
async function publishMergedCollection(run: RunDir): Promise<void> {
  const protocol = run.header.protocol as { selection: SelectionOptions; collection: CollectMode["kind"] };
  const label = datasetLabel(run);
  const hash = run.header.sources.dataset;
  const bytes = await run.store.get(hash);
  // The loaders choose the layout by extension: read the dataset blob through a link named like the original.
  const tmp = await Deno.makeTempDir({ prefix: "compaction-bench-merge-" });
  try {
    const path = join(tmp, `dataset${extname(label).toLowerCase()}`);
    await Deno.symlink(run.store.pathOf(hash), path);
    const dataset = hotpotDatasetFile(path, "the shards' dataset");
    const progress = new Progress(run.header.suite, { quiet: true });
    const context: RunContext = {
      run,
      executor: await Executor.overJournal(run, { progress }),
      progress,
      resumed: true,
    };
    await collectCorpus(context, {
      datasetPath: label,
      datasetSha256: sha256Hex(bytes),
      dataset,
      selection: protocol.selection,
      mode: await replayMode(run, protocol.collection),
      replay: true,
    });
    await bindRunHeader(context.executor, run);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

/** `hotpot collect` shards: every node is kept but the shards' corpus nodes (made again over the whole). */
export const HOTPOT_COLLECT_MERGE: SuiteMerge = {
  skipStages: new Set([hotpotCorpusStage.name, runHeaderStage.name]),
  publish: publishMergedCollection,
};

/** `hotpot collect`. */
export const HOTPOT_COLLECT_SUITE: Suite = {
  name: "hotpot-collect",
  command: ["hotpot", "collect"],
  title: "hotpot-collect",
  resumable: true,
  stages: [hotpotSelectStage, hotpotCollectStage, hotpotCorpusStage],
  rederive: HOTPOT_COLLECT_REDERIVATION,
  merge: HOTPOT_COLLECT_MERGE,
  summary: () => [],
};
