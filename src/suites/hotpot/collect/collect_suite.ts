/**
 * `hotpot collect` over the run store: `hotpot-select` (before any model call), one `hotpot-collect` per
 * question, `hotpot-corpus` publishing corpus.json and selection.json. A shard collects its part of the whole
 * selection; `merge` replays this without a shard, refusing by name a question no shard collected.
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "../../../errors.ts";
import type { RunContext } from "../../run_lifecycle.ts";
import { type CollectMode, sessionSourceName } from "./collect_question.ts";
import type { CollectionCheck } from "./collection_checks.ts";
import type { CollectionOutline } from "./collect_mode.ts";
import type { SelectionOptions } from "./select.ts";
import { hotpotSelectStage, type SelectionReport } from "./stages/select.ts";
import { hotpotCollectStage } from "./stages/collect.ts";
import { hotpotCorpusStage, questionValidity } from "./stages/corpus.ts";
import { questionInShard, type Shard } from "../../../pipeline/shard.ts";
import type { HotpotDataset } from "./dataset_file.ts";

export { type CollectMode, sessionSourceName } from "./collect_question.ts";

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

export { type SelectionReport, selectionReport } from "./stages/select.ts";

function removedText(report: SelectionReport): string {
  return Object.entries(report.removed).map(([k, v]) => `${k} ${v}`).join(", ");
}

/**
 * Refuses a selection that cannot fill its quotas, naming the counts per type and filter and the options that
 * would change it (the quotas the dataset gave; `--min-chars`/`--max-chars` when the range removed records).
 */
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
