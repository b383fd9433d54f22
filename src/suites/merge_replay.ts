/**
 * What a suite's merged-run publisher (`Suite.merge`) replays with: a context whose journal holds every node,
 * models that fail on any call (a call means a node is missing), the shards' options and tokenizer.
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
    const { name, hash } = run.header.tokenizer;
    const where = dir === undefined ? "" : ` at ${dir}`;
    throw new UsageError(
      `merge: the shards' tokenizer ${name} (${hash.slice(0, 12)}) is not available here${where}`,
    );
  }
  return counter;
}
