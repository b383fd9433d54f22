/**
 * A sweep run's `protocol.json`, and the completion of a run merged from sweep shards by the same
 * {@link runSweep} replayed over the merged journal.
 * @module
 */
import { UsageError } from "../../errors.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import { type SweepFixture, sweepFixtureFromSources } from "./fixture.ts";
import { runSweep, type SweepRunOptions } from "./run_suite.ts";
import { replayModels } from "../merge_replay.ts";
import { answerMerge } from "../answer_pipeline.ts";
import { sweepAggregateStage, sweepCeilingsStage } from "./stages/aggregate.ts";
import { sweepReportStage } from "./stages/report.ts";

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

/** `sweep run` shards: the sweep replayed over the merged run publishes its files before the run is sealed. */
export const SWEEP_MERGE = answerMerge(
  { aggregate: sweepAggregateStage, ceilings: sweepCeilingsStage, report: sweepReportStage },
  async (run, context, counter, analysis) => {
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
    const outcome = await runSweep(context, fixture, options, replayModels(description), counter, analysis);
    return { files: outcome.files, protocol: sweepProtocolJson(options, description, counter, fixture) };
  },
);
