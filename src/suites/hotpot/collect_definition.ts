/**
 * The `hotpot collect` suite (apart from `definition.ts`: a run never loads the collection side): its plan,
 * `hotpot-select` (before any model call) → `hotpot-collect` per question (a shard: its part) →
 * `hotpot-corpus`, and its merge, which replays the plan over the shards' nodes.
 * @module
 */
import type { Suite } from "../suite.ts";
import { HOTPOT_COLLECT_REDERIVATION } from "./rederivation.ts";
import {
  hotpotCollectStage,
  hotpotCorpusStage,
  hotpotSelectStage,
  questionValidity,
} from "./collect/stages/collect.ts";
import { extname, join } from "node:path";
import { UsageError } from "../../errors.ts";
import { Executor } from "../../pipeline/executor.ts";
import { bindRunHeader } from "../published.ts";
import { Progress } from "../../pipeline/progress.ts";
import { sha256Hex } from "../../store/hash.ts";
import type { RunDir } from "../../store/run_dir.ts";
import type { RunContext } from "../run_lifecycle.ts";
import { type HotpotDataset, hotpotDatasetFile } from "./collect/dataset_file.ts";
import type { SelectionOptions, SelectionReport } from "./collect/select.ts";
import { runHeaderStage } from "../../pipeline/run_header.ts";
import { z } from "zod";
import { type CollectMode, sessionSourceName } from "./collect/collect_question.ts";
import type { CollectionCheck } from "./collect/collection_checks.ts";
import type { CollectionOutline } from "./collect/collect_mode.ts";
import { questionInShard, type Shard } from "../../pipeline/shard.ts";

/** The name corpus.json records for the embedded demo dataset (as `hotpot collect` does). */
const EMBEDDED_DATASET_LABEL = "embedded:fixtures/hotpot/demo.parquet";

/** The collection mode as the shards' collect nodes recorded it (only its key-relevant fields matter). */
async function replayMode(run: RunDir, protocolMode: CollectMode["kind"]): Promise<CollectMode> {
  // The params every collect node of one collection shares (besides the question id).
  let params: { mode?: string; model?: string; agent?: string; agent_system_prompt?: string } = {};
  for await (const node of run.readNodes()) {
    if (node.stage === hotpotCollectStage.name) {
      params = node.params as typeof params;
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
    // A chat model that refuses every call: a replay takes every collect node from the journal.
    const complete = () => {
      throw new Error("merge: a replayed collection asked the chat model; a collect node is missing");
    };
    return { kind: "live", chat: { model, complete }, model };
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

/** Replays the collection over the merged run and writes selection.json and corpus.json into it. */
async function publishMergedCollection(run: RunDir): Promise<void> {
  const protocol = run.header.protocol as { selection: SelectionOptions; collection: CollectMode["kind"] };
  // The `--dataset` the first shard was given (invocation's `shard_options`), or the embedded data's name.
  const options = run.header.invocation.options as { shard_options?: { dataset?: unknown } } | null;
  const given = options?.shard_options?.dataset;
  const label = typeof given === "string" ? given : EMBEDDED_DATASET_LABEL;
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

/** `hotpot collect`. */
export const HOTPOT_COLLECT_SUITE: Suite = {
  name: "hotpot-collect",
  command: ["hotpot", "collect"],
  title: "hotpot-collect",
  resumable: true,
  stages: [hotpotSelectStage, hotpotCollectStage, hotpotCorpusStage],
  rederive: HOTPOT_COLLECT_REDERIVATION,
  // Shards merged: every node is kept but the shards' corpus nodes (made again over the whole).
  merge: {
    skipStages: new Set([hotpotCorpusStage.name, runHeaderStage.name]),
    publish: publishMergedCollection,
  },
  summary: () => [],
};

export type { CollectMode } from "./collect/collect_question.ts";

/** Options of {@link collectCorpus}. */
export interface CollectOptions {
  datasetPath: string;
  datasetSha256: string;
  /** The dataset, read in batches: selection keeps its candidates, collection only its selected records. */
  dataset: HotpotDataset;
  selection: SelectionOptions;
  mode: CollectMode;
  /** Collect only this part of the selected questions (`--shard K/N`); the selection stays whole. */
  shard?: Shard;
  /** A merge's replay: every node must come from the run's journal; collecting anything is refused. */
  replay?: boolean;
}

const SelectedSchema = z.object({ ids: z.array(z.string()) });

function removedText(report: SelectionReport): string {
  return Object.entries(report.removed).map(([k, v]) => `${k} ${v}`).join(", ");
}

/** Refuses a selection that cannot fill its quotas, naming its counts and the options that change that. */
export function assertQuotaMet(
  report: SelectionReport,
  datasetPath: string,
  selection?: Pick<SelectionOptions, "minChars" | "maxChars">,
): void {
  if (report.quota_met) return;
  const counts = Object.entries(report.counts).map(([k, v]) => `${k} ${v.selected}/${v.wanted}`).join(", ");
  const ways: string[] = [];
  if (report.removed.chars_out_of_range > 0) {
    const range = selection ? `, now ${selection.minChars}–${selection.maxChars}` : "";
    ways.push(
      `widen the evidence-character range (--min-chars/--max-chars${range}), which removed ${report.removed.chars_out_of_range} record(s)`,
    );
  }
  ways.push(
    `ask for what the dataset can give (--bridge ${report.counts.bridge.selected} --comparison ${report.counts.comparison.selected}, or fewer --questions)`,
  );
  throw new UsageError(
    `${datasetPath}: not enough records pass the filters (${counts}; removed: ${
      removedText(report)
    }); to fill the selection, ${ways.join(", or ")}`,
  );
}

/** Selects and collects; publishes corpus.json and selection.json; returns the outline (never the corpus). */
export async function collectCorpus(
  context: RunContext,
  options: CollectOptions,
): Promise<CollectionOutline> {
  const { executor, run, progress } = context;
  const datasetHash = run.header.sources["dataset"];
  progress.plan(hotpotSelectStage.name, 1);
  const selectNode = await executor.runStage(hotpotSelectStage, {
    label: "select",
    params: { ...options.selection },
    inputs: { dataset: datasetHash },
    values: { dataset: null },
  }, options.dataset);
  const report = selectNode.outputs.report as unknown as SelectionReport;
  progress.note(`selection: considered ${report.considered} record(s); removed: ${removedText(report)}`);
  assertQuotaMet(report, options.datasetPath, options.selection);
  const ids = SelectedSchema.parse(selectNode.outputs.selected).ids
    .filter((id) => questionInShard(id, options.shard));
  // A second pass keeps only this run's selected records (remembered: the corpus node reads them again).
  const { byId } = await options.dataset.records(new Set(ids));
  const workRoot = await Deno.makeTempDir({ prefix: "compaction-bench-workspaces-" });
  const mode = options.mode;
  progress.plan(hotpotCollectStage.name, ids.length);
  try {
    const collected = await Promise.all(ids.map(async (id, index) => {
      const record = byId.get(id)!;
      const sessionHash = mode.kind === "hermes" ? run.header.sources[sessionSourceName(id)] : undefined;
      const node = await executor.runStage(hotpotCollectStage, {
        label: `collect q=${id}`,
        params: {
          id,
          mode: mode.kind,
          ...(mode.kind === "live" ? { model: mode.model } : {}),
          ...(mode.kind === "agent" ? { agent: mode.command } : {}),
          // The chat model the agent reached through the loopback endpoint (its answers depend on it).
          ...(mode.kind === "agent" && mode.endpoint !== undefined ? { model: mode.endpoint.model } : {}),
          ...(mode.kind === "agent" && mode.systemPrompt !== undefined
            ? { agent_system_prompt: mode.systemPrompt }
            : {}),
        },
        inputs: { dataset: datasetHash, ...(sessionHash !== undefined ? { session: sessionHash } : {}) },
        provider: mode.kind === "live" || (mode.kind === "agent" && mode.endpoint !== undefined),
      }, { mode, record, workspace: join(workRoot, String(index)), replay: options.replay });
      const outline = { id, ...questionValidity(node.outputs.check as unknown as CollectionCheck) };
      return { id, check: node.node.outputs.check, collection: node.node.outputs.collection, outline };
    }));
    // corpus.json and selection.json are the outputs of one node below the select and collect nodes.
    progress.plan(hotpotCorpusStage.name, 1);
    const corpusNode = await executor.runStage(hotpotCorpusStage, {
      label: "corpus",
      params: {
        dataset: { path: options.datasetPath, sha256: options.datasetSha256 },
        selection: { ...options.selection },
        collection: mode.kind,
        ...(mode.kind === "agent" ? { agent: mode.command } : {}),
        ...(options.shard !== undefined ? { shard: options.shard } : {}),
      },
      inputs: {
        dataset: datasetHash,
        selected: selectNode.node.outputs.selected,
        report: selectNode.node.outputs.report,
        ...Object.fromEntries(
          collected.flatMap((q) => [[`check:${q.id}`, q.check], [`collection:${q.id}`, q.collection]]),
        ),
      },
    }, options.dataset);
    await run.publish("selection.json", corpusNode.node.outputs["selection.json"]);
    await run.publish("corpus.json", corpusNode.node.outputs["corpus.json"]);
    const s = options.selection;
    return {
      protocol: { collection: mode.kind, bridge: s.bridge, comparison: s.comparison },
      ...(options.shard !== undefined ? { shard: options.shard } : {}),
      questions: collected.map((q) => q.outline),
    };
  } finally {
    await Deno.remove(workRoot, { recursive: true });
  }
}
