/**
 * What `sweep run` does once its options are parsed: check the sandbox, the fixture and the frozen run before
 * anything is written, set up the tokenizer and the models, and run the suite through the one life cycle.
 *
 * @module
 */
import { readPrices } from "../../analysis/read_prices.ts";
import { type EngineOption, selectMethods } from "../method_selection.ts";
import { startLoopbackProxy } from "../../models/loopback_proxy.ts";
import { assetPath } from "../../assets.ts";
import { UsageError } from "../../errors.ts";
import { readInputFile } from "../../fs_input.ts";
import { loadTokenCounter } from "../../tokens/load.ts";
import { setupModels } from "../model_setup.ts";
import {
  closingOnRefusal,
  openFrozenFor,
  openRetried,
  refuseWithRetry,
  type RunCommandOptions,
  type RunInvocation,
  runSuite,
} from "../run_lifecycle.ts";
import { sha256Hex } from "../../store/hash.ts";
import { SWEEP_SUITE } from "./definition.ts";
import { loadSweepFixture } from "./fixture.ts";
import { DEFAULT_SWEEP_TRAJECTORY } from "./oracle.ts";
import { DEFAULT_SWEEP_RUN, runSweep } from "./run_suite.ts";
import { assertSandboxAvailable } from "./sandbox.ts";
import { assertSweepFrozen } from "./frozen_protocol.ts";
import type { Shard } from "../../pipeline/shard.ts";
import { sweepProtocolJson } from "./publish.ts";

/** The parsed options of `sweep run`. */
export interface SweepRunCommandOptions extends RunCommandOptions {
  trajectory?: string;
  compressions?: number;
  "top-n"?: number[];
  /** One ceiling, or several (a ceiling sweep; the first is the primary one). */
  "input-cap"?: number[];
  "summary-allowance"?: number;
  reserve?: number;
  answers?: number;
  tokenizer?: string;
  bootstrap?: number;
  price?: { model: string; input: number; output: number }[];
  prices?: string;
  /** The part of the generations this run does (`--shard K/N`: generation g is in part g mod N). */
  shard?: Shard;
  /** `--method [NAME=]SPEC` values: methods and engines after full, S and S+TopN. */
  method?: string[];
}

/**
 * The methods `--method` adds after full, S and S+TopN: declared methods over the sweep's units (those whose
 * context needs at most the generation's ranking and its S) and any engine; nothing given: none, so the
 * protocol stays as it was.
 */
async function sweepMethods(
  options: SweepRunCommandOptions,
  ceilingSweep: boolean,
): Promise<{ methods?: string[]; engines?: EngineOption[] }> {
  if (!options.method?.length) return {};
  // The sweep's own methods are full, S (`summary`) and S+TopN (`summary+top`); fusion keeps its own
  // summary, which the sweep does not make, so `jev+summary` here is the engine.
  const own = new Set(["full", "summary", "summary+top", "jev+summary"]);
  const selected = await selectMethods({ method: options.method }, [], (name) => !own.has(name));
  if (selected.engines.length > 0 && ceilingSweep) {
    throw new UsageError(
      "--method with an engine takes one --input-cap (engines are compacted to one ceiling)",
    );
  }
  return {
    methods: selected.methods,
    ...(selected.engines.length > 0 ? { engines: selected.engines } : {}),
  };
}

/** `sweep run`: returns the run directory. */
export async function sweepRunCommand(
  options: SweepRunCommandOptions,
  invocation: RunInvocation,
): Promise<string> {
  refuseWithRetry(options);
  await assertSandboxAvailable();
  const fixture = await loadSweepFixture(options.trajectory ?? assetPath(DEFAULT_SWEEP_TRAJECTORY));
  const runOptions = {
    ...DEFAULT_SWEEP_RUN,
    ...(options.compressions !== undefined ? { compressions: options.compressions } : {}),
    ...(options["top-n"] !== undefined ? { topN: options["top-n"] } : {}),
    ...(options["input-cap"] !== undefined ? { inputCap: options["input-cap"][0] } : {}),
    // Only a sweep records its list, so a single ceiling keeps today's protocol (and keys) byte for byte.
    ...(options["input-cap"] !== undefined && options["input-cap"].length > 1
      ? { inputCaps: options["input-cap"] }
      : {}),
    ...(options["summary-allowance"] !== undefined ? { summaryAllowance: options["summary-allowance"] } : {}),
    ...(options.reserve !== undefined ? { reserve: options.reserve } : {}),
    ...(options.answers !== undefined ? { answers: options.answers } : {}),
  };
  Object.assign(runOptions, await sweepMethods(options, runOptions.inputCaps !== undefined));
  const caps = runOptions.inputCaps ?? [runOptions.inputCap];
  if (runOptions.reserve >= Math.min(...caps, runOptions.summaryAllowance)) {
    throw new UsageError("--reserve must be smaller than --input-cap and --summary-allowance");
  }
  const checkOnly = options["check-only"] === true;
  const frozen = await openFrozenFor(SWEEP_SUITE, options["frozen-run"], checkOnly, runOptions);
  const counter = await loadTokenCounter(options.tokenizer);
  const trajectoryBytes = await readInputFile(fixture.path, "--trajectory");
  const prices = await readPrices(options);
  const models = await setupModels(options, counter, checkOnly, frozen?.manifest.protocol);
  if (frozen && !checkOnly) {
    const ours = { tokenizerHash: counter.hash, fixtureHash: fixture.hash, models: models.description };
    await closingOnRefusal([models], () => assertSweepFrozen(frozen, { ...ours, options: runOptions }));
  }
  const protocol = { suite: "sweep", ...runOptions, fixture: fixture.hash, models: models.description };
  const retry = await closingOnRefusal([models], () =>
    openRetried(SWEEP_SUITE, options, {
      protocol,
      tokenizerHash: counter.hash,
      sources: { trajectory: sha256Hex(trajectoryBytes) },
    }));
  // Outside engine methods reach the chat model only through this loopback endpoint, a token per call.
  const endpoint = runOptions.engines?.length && models.chatEndpoint
    ? startLoopbackProxy(models.chatEndpoint)
    : undefined;
  const finished = await runSuite(
    {
      suite: SWEEP_SUITE,
      invocation,
      options: { ...options },
      output: options.output,
      resume: options.resume,
      quiet: options.quiet,
      frozen,
      retry,
      checkOnly,
      protocol,
      tokenizer: { name: counter.name, hash: counter.hash },
      sources: { trajectory: trajectoryBytes },
      shard: options.shard,
      models,
    },
    async (context) => {
      const outcome = await runSweep(context, fixture, runOptions, models, counter, {
        bootstrap: options.bootstrap,
        prices,
      }, { endpoint });
      const summary = outcome.checkOnly ? [] : SWEEP_SUITE.summary(
        await context.run.store.getText(outcome.files["aggregate.json"]),
      );
      return {
        result: outcome,
        files: outcome.files,
        json: {
          "protocol.json": sweepProtocolJson(runOptions, models.description, counter, fixture),
        },
        check: outcome.checkOnly,
        lines: [
          ...summary,
          `compression calls: ${outcome.compressionUsage.calls}; reused nodes: ${outcome.reusedCompression}`,
        ],
      };
    },
  ).finally(() => endpoint?.close());
  return finished.path;
}
