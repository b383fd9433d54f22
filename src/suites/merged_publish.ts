/**
 * What each suite exports on a run merged from shards (`compaction-bench merge`): the same files, computed by
 * the same code, as a whole run of that suite. Keyed by the suite name in the run header.
 *
 * A shard's aggregate and report nodes cover its part only, so `merge` leaves them out (`skipStages`); the
 * suite is then replayed over the merged run, whose journal already holds every other node, so every stage is
 * taken from it (as on `--resume`) and no model is called; the aggregate and report stages run over the
 * merged nodes and the suite publishes its files as a whole run does. A model call during a replay means a
 * node is missing: it fails the merge.
 *
 * @module
 */
import { bindRunHeader, publishJsonFile } from "./published_json_stage.ts";
import { UsageError } from "../errors.ts";
import { readPrices } from "../analysis/read_prices.ts";
import type { ChatModel, DecisionModel } from "../models/types.ts";
import { Executor } from "../pipeline/executor.ts";
import { Progress } from "../pipeline/progress.ts";
import type { RunDir } from "../store/run_dir.ts";
import { sha256Hex } from "../store/hash.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { CorpusSchema } from "./hotpot/corpus.ts";
import { publishMergedCollection } from "./hotpot/collect_merge.ts";
import { type HotpotRunOptions, runHotpot } from "./hotpot/run_suite.ts";
import type { ModelSetup } from "./model_setup.ts";
import type { RunContext } from "./run_lifecycle.ts";
import { publishMergedSweep, SWEEP_MERGE_SKIP } from "./sweep/publish.ts";

/** How a suite's merged run is completed: the stages left out of the join, and the export. */
export interface MergedPublisher {
  /** Stages whose nodes are recomputed on the merged run (a shard's aggregate and reports). */
  skipStages: ReadonlySet<string>;
  /** Replays the suite over the merged nodes and publishes its files (before the run is sealed). */
  publish(run: RunDir): Promise<void>;
}

function missingNode(what: string): never {
  throw new Error(`merge: the shards lack a node (a replay asked the ${what}); the merged run is incomplete`);
}

/** Models that fail on any call: a replay takes every model stage from the merged journal. */
function replayModels(description: ModelSetup["description"]): ModelSetup {
  const chat: ChatModel = { model: description.chat_model, complete: () => missingNode("chat model") };
  const decision: DecisionModel = {
    model: description.decision_model,
    ask: () => missingNode("decision model"),
  };
  return { chat, decision, description, secrets: [], close: () => Promise.resolve() };
}

/** A run context over the merged run: every journaled node is taken as resumed. */
async function replayContext(run: RunDir): Promise<RunContext> {
  const progress = new Progress(run.header.suite, { quiet: true });
  return { run, executor: await Executor.overJournal(run, { progress }), progress, resumed: true };
}

/** The options the first shard was started with (recorded by `merge` in the merged run's invocation). */
function shardOptions(run: RunDir): Record<string, unknown> {
  const options = (run.header.invocation.options ?? {}) as { shard_options?: Record<string, unknown> };
  return options.shard_options ?? {};
}

/** The tokenizer the shards used, checked against the header's hash. */
async function shardCounter(run: RunDir) {
  const dir = shardOptions(run).tokenizer as string | undefined;
  const counter = await loadTokenCounter(dir);
  if (run.header.tokenizer !== null && counter.hash !== run.header.tokenizer.hash) {
    throw new UsageError(
      `merge: the shards' tokenizer ${run.header.tokenizer.name} (${
        run.header.tokenizer.hash.slice(0, 12)
      }) ` +
        `is not available here${dir === undefined ? "" : ` at ${dir}`}`,
    );
  }
  return counter;
}

type HotpotProtocol = HotpotRunOptions & { models: ModelSetup["description"]; suite: string };

async function publishHotpot(run: RunDir): Promise<void> {
  const bytes = await run.store.get(run.header.sources.corpus);
  const parsed = CorpusSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
  if (!parsed.success) throw new UsageError(`merge: the shards' corpus is not a valid corpus`);
  const corpus = parsed.data;
  const { models: description, suite: _suite, ...runOptions } = run.header.protocol as HotpotProtocol;
  const counter = await shardCounter(run);
  const recorded = shardOptions(run);
  const prices = await readPrices({
    price: recorded.price as { model: string; input: number; output: number }[] | undefined,
    prices: recorded.prices as string | undefined,
  });
  const context = await replayContext(run);
  const outcome = await runHotpot(
    context,
    undefined, // the merged run holds every shard's questions
    runOptions,
    replayModels(description),
    counter,
    {
      bootstrap: recorded.bootstrap as number | undefined,
      prices,
    },
  );
  const below = { "aggregate.json": outcome.files["aggregate.json"] };
  const header = await bindRunHeader(context.executor, run, below);
  await publishJsonFile(context.executor, run, "protocol.json", {
    suite: "hotpot",
    ...runOptions,
    models: description,
    tokenizer: { name: counter.name, hash: counter.hash },
    corpus_sha256: sha256Hex(bytes),
    dataset_sha256: corpus.dataset.sha256,
  }, { ...below, ...header });
  await run.writeFile("corpus.json", bytes);
  for (const [name, hash] of Object.entries(outcome.files)) await run.publish(name, hash);
}

/** The suites whose shards can be merged. */
export const mergedPublishers: Record<string, MergedPublisher> = {
  // A shard's protocol.json node hangs below its aggregate: it is published again below the merged one.
  hotpot: {
    skipStages: new Set([
      "hotpot-aggregate",
      "hotpot-ceilings",
      "hotpot-report",
      "published-json",
      "run-header",
    ]),
    publish: publishHotpot,
  },
  sweep: {
    skipStages: SWEEP_MERGE_SKIP,
    publish: async (run) =>
      publishMergedSweep(run, {
        context: await replayContext(run),
        models: replayModels,
        counter: await shardCounter(run),
        recorded: shardOptions(run),
      }),
  },
  // Collect shards: every node is kept but each shard's corpus node; the merged corpus node is made again
  // over the whole selection (hotpot/collect_merge.ts).
  "hotpot-collect": {
    skipStages: new Set(["hotpot-corpus", "run-header"]),
    publish: publishMergedCollection,
  },
};
