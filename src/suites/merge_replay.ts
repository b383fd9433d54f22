/**
 * What every suite's merged-run publisher (`Suite.merge`, `compaction-bench merge`) replays with: a run
 * context over the merged run whose journal already holds every node (so every stage is taken from it, as
 * on `--resume`), models that fail on any call (a model call during a replay means a node is missing: it
 * fails the merge), the options and the tokenizer the shards were started with.
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import type { ChatModel, DecisionModel } from "../models/types.ts";
import { Executor } from "../pipeline/executor.ts";
import { Progress } from "../pipeline/progress.ts";
import type { RunDir } from "../store/run_dir.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import type { ModelSetup } from "./model_setup.ts";
import type { RunContext } from "./run_lifecycle.ts";

function missingNode(what: string): never {
  throw new Error(`merge: the shards lack a node (a replay asked the ${what}); the merged run is incomplete`);
}

/** Models that fail on any call: a replay takes every model stage from the merged journal. */
export function replayModels(description: ModelSetup["description"]): ModelSetup {
  const chat: ChatModel = { model: description.chat_model, complete: () => missingNode("chat model") };
  const decision: DecisionModel = {
    model: description.decision_model,
    ask: () => missingNode("decision model"),
  };
  return { chat, decision, description, secrets: [], close: () => Promise.resolve() };
}

/** A run context over the merged run: every journaled node is taken as resumed. */
export async function replayContext(run: RunDir): Promise<RunContext> {
  const progress = new Progress(run.header.suite, { quiet: true });
  return { run, executor: await Executor.overJournal(run, { progress }), progress, resumed: true };
}

/** The options the first shard was started with (recorded by `merge` in the merged run's invocation). */
export function shardOptions(run: RunDir): Record<string, unknown> {
  const options = (run.header.invocation.options ?? {}) as { shard_options?: Record<string, unknown> };
  return options.shard_options ?? {};
}

/** The tokenizer the shards used, checked against the header's hash. */
export async function shardCounter(run: RunDir) {
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
