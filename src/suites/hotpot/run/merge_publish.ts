/**
 * Completing a run merged from `hotpot run` shards: the shards' aggregate, ceilings, report and header nodes are
 * left out of the join, and {@link runHotpot} replays the merged nodes (no model is called) and publishes.
 *
 * @module
 */
import { UsageError } from "../../../errors.ts";
import { readPrices } from "../../../analysis/read_prices.ts";
import type { RunDir } from "../../../store/run_dir.ts";
import { sha256Hex } from "../../../store/hash.ts";
import type { ModelSetup } from "../../model_setup.ts";
import type { SuiteMerge } from "../../suite.ts";
import { bindRunHeader, publishJsonFile } from "../../published_json_stage.ts";
import { replayContext, replayModels, shardCounter, shardOptions } from "../../merge_replay.ts";
import { CorpusSchema } from "../corpus.ts";
import { type HotpotRunOptions, runHotpot } from "./run_suite.ts";
import { hotpotAggregateStage } from "./stages/aggregate.ts";
import { hotpotCeilingsStage } from "./stages/ceilings.ts";
import { hotpotReportStage } from "../report/stages/report.ts";
import { publishedJsonStage } from "../../published_json_stage.ts";
import { runHeaderStage } from "../../../pipeline/run_header.ts";
import { parseJsonBytes } from "../../../core/json_read.ts";

type HotpotProtocol = HotpotRunOptions & { models: ModelSetup["description"]; suite: string };

async function publishHotpot(run: RunDir): Promise<void> {
  const bytes = await run.store.get(run.header.sources.corpus);
  const parsed = CorpusSchema.safeParse(parseJsonBytes(bytes));
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

// A shard's protocol.json node hangs below its aggregate: it is published again below the merged one.
/** `hotpot run` shards. */
export const HOTPOT_MERGE: SuiteMerge = {
  skipStages: new Set([
    hotpotAggregateStage.name,
    hotpotCeilingsStage.name,
    hotpotReportStage.name,
    publishedJsonStage.name,
    runHeaderStage.name,
  ]),
  publish: publishHotpot,
};
