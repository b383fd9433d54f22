/**
 * A sweep run's `protocol.json`, and the completion of a run merged from sweep shards by the same
 * {@link runSweep} replayed over the merged journal.
 * @module
 */
import { UsageError } from "../../errors.ts";
import { readPrices } from "../../analysis/read_prices.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import { type SweepFixture, sweepFixtureFromSources } from "./fixture.ts";
import { runSweep, type SweepRunOptions } from "./run_suite.ts";
import { bindRunHeader, publishedJsonStage, publishJsonFile } from "../published_json_stage.ts";
import type { SuiteMerge } from "../suite.ts";
import { replayContext, replayModels, shardCounter, shardOptions } from "../merge_replay.ts";
import { runHeaderStage } from "../../pipeline/run_header.ts";
import { sweepAggregateStage } from "./stages/aggregate.ts";
import { sweepCeilingsStage } from "./stages/ceilings.ts";
import { sweepReportStage } from "./stages/report.ts";

/** The stages a merge leaves out of the join (each shard's cover its part; the merged run redoes them). */
const SWEEP_MERGE_SKIP: ReadonlySet<string> = new Set([
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

/**
 * `sweep run` shards: the sweep replayed over the merged run (the models refuse any call) publishes its files
 * before the run is sealed.
 */
export const SWEEP_MERGE: SuiteMerge = {
  skipStages: SWEEP_MERGE_SKIP,
  async publish(run) {
    const context = await replayContext(run);
    const counter = await shardCounter(run);
    const recorded = shardOptions(run);
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
    const prices = await readPrices({
      price: recorded.price as { model: string; input: number; output: number }[] | undefined,
      prices: recorded.prices as string | undefined,
    });
    const bootstrap = recorded.bootstrap as number | undefined;
    const outcome = await runSweep(context, fixture, options, replayModels(description), counter, {
      bootstrap,
      prices,
    });
    const below = { "aggregate.json": outcome.files["aggregate.json"] };
    const header = await bindRunHeader(context.executor, run, below);
    const protocol = sweepProtocolJson(options, description, counter, fixture);
    await publishJsonFile(context.executor, run, "protocol.json", protocol, { ...below, ...header });
    for (const [name, hash] of Object.entries(outcome.files)) await run.publish(name, hash);
  },
};
