/**
 * What a sweep run publishes besides its node outputs (`protocol.json`), and how a run merged from sweep
 * shards (`compaction-bench merge`) is completed: the sweep is replayed over the merged nodes by the same
 * {@link runSweep} a whole run uses — every summary, ranking, context, answer and score is taken from the
 * merged journal (the models refuse any call), the aggregate, ceilings and report stages run over every
 * generation — and the same files are published.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import { readPrices } from "../../analysis/read_prices.ts";
import type { RunDir } from "../../store/run_dir.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import { type SweepFixture, sweepFixtureFromSources } from "./fixture.ts";
import { runSweep, type SweepRunOptions } from "./run_suite.ts";
import { bindRunHeader, publishJsonFile } from "../published_json_stage.ts";
import type { SuiteMerge } from "../suite.ts";
import { replayContext, replayModels, shardCounter, shardOptions } from "../merge_replay.ts";
import { publishedJsonStage } from "../published_json_stage.ts";
import { runHeaderStage } from "../../pipeline/run_header.ts";
import { sweepAggregateStage } from "./stages/aggregate.ts";
import { sweepCeilingsStage } from "./stages/ceilings.ts";
import { sweepReportStage } from "./stages/report.ts";

/** The stages a merge leaves out of the join: each shard's cover its part only, the merged run recomputes them. */
export const SWEEP_MERGE_SKIP: ReadonlySet<string> = new Set([
  sweepAggregateStage.name,
  sweepCeilingsStage.name,
  sweepReportStage.name,
  publishedJsonStage.name,
  runHeaderStage.name,
]);

/** `protocol.json` of a sweep run. */
export function sweepProtocolJson(
  options: SweepRunOptions,
  models: ModelSetup["description"],
  counter: TokenCounter,
  fixture: SweepFixture,
): Record<string, unknown> {
  return {
    suite: "sweep",
    ...options,
    models,
    tokenizer: { name: counter.name, hash: counter.hash },
    fixture: {
      name: fixture.name,
      sha256: fixture.hash,
      units: fixture.units.map((u) => u.id),
      facts: fixture.facts.map((f) => ({ name: f.name, text: f.text })),
      // The payment case's protocol.json as before cases were data; another case also names its pin.
      repair: {
        functionName: fixture.repair.functionName,
        signature: fixture.repair.signature,
        ...fixture.repair.values,
      },
      ...(fixture.hash !== fixture.trajectoryHash
        ? {
          trajectory_sha256: fixture.trajectoryHash,
          checks: fixture.checks.kind === "module" ? fixture.checks.file : fixture.checks.name,
        }
        : {}),
    },
  };
}

/** What the merge gives the sweep replay: a context over the merged run, call-refusing models, the tokenizer. */
export interface SweepReplay {
  context: RunContext;
  models(description: ModelSetup["description"]): ModelSetup;
  counter: TokenCounter;
  /** The options the first shard was started with (as recorded in its header). */
  recorded: Record<string, unknown>;
}

/** Replays the sweep over a merged run and publishes its files (before the run is sealed). */
export async function publishMergedSweep(run: RunDir, replay: SweepReplay): Promise<void> {
  const { models: description, fixture: fixtureHash, suite: _suite, ...options } = run.header.protocol as
    & SweepRunOptions
    & { models: ModelSetup["description"]; fixture: string; suite: string };
  const sources = run.header.sources;
  const fixture = await sweepFixtureFromSources(
    async (name) => sources[name] ? await run.store.get(sources[name]) : undefined,
    "the shards",
  );
  if (fixture.hash !== fixtureHash) {
    throw new UsageError(`merge: the shards' trajectory source is not the fixture their protocol names`);
  }
  const recorded = replay.recorded;
  const prices = await readPrices({
    price: recorded.price as { model: string; input: number; output: number }[] | undefined,
    prices: recorded.prices as string | undefined,
  });
  const outcome = await runSweep(
    replay.context,
    fixture,
    options,
    replay.models(description),
    replay.counter,
    {
      bootstrap: recorded.bootstrap as number | undefined,
      prices,
    },
  );
  const below = { "aggregate.json": outcome.files["aggregate.json"] };
  const header = await bindRunHeader(replay.context.executor, run, below);
  await publishJsonFile(
    replay.context.executor,
    run,
    "protocol.json",
    sweepProtocolJson(options, description, replay.counter, fixture),
    { ...below, ...header },
  );
  for (const [name, hash] of Object.entries(outcome.files)) await run.publish(name, hash);
}

/** `sweep run` shards. */
export const SWEEP_MERGE: SuiteMerge = {
  skipStages: SWEEP_MERGE_SKIP,
  publish: async (run) =>
    publishMergedSweep(run, {
      context: await replayContext(run),
      models: replayModels,
      counter: await shardCounter(run),
      recorded: shardOptions(run),
    }),
};
