/**
 * `sweep run` after parsing: sandbox, case, options and a frozen run's compression inputs checked before
 * anything is written, then the shared run set-up (`../run_command.ts`).
 * @module
 */
import { declaredMethod } from "../../methods/registry.ts";
import { type EngineOption, selectMethods } from "../method_selection.ts";
import { UsageError } from "../../errors.ts";
import { refuseWithRetry, runSuiteCommand } from "../run_command.ts";
import type { RunCommandOptions, RunInvocation } from "../run_lifecycle.ts";
import { SWEEP_SUITE, sweepProtocolJson } from "./definition.ts";
import { resolveSweepCase } from "./fixture.ts";
import { DEFAULT_SWEEP_RUN, runSweep } from "./run_suite.ts";
import { assertSandboxAvailable } from "./sandbox.ts";
import type { Shard } from "../../pipeline/shard.ts";
import { assertFrozenProtocol, assertNoFailedCompression } from "../../pipeline/frozen_check.ts";
import type { SweepRunOptions } from "./run_options.ts";
import { sweepRankStage, sweepSummaryStage } from "./stages/compress.ts";

/** The parsed options of `sweep run`. */
export interface SweepRunCommandOptions extends RunCommandOptions {
  trajectory?: string;
  /** The case to run, or (with `--trajectory`) the folders searched for its pin. */
  case?: string[];
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
  /** `--shard K/N`: generation g is in part g mod N. */
  shard?: Shard;
  method?: string[];
}

/** The declared methods and engines `--method` adds after full, S and S+TopN (none given: none). */
async function sweepMethods(
  options: SweepRunCommandOptions,
  ceilingSweep: boolean,
): Promise<{ methods?: string[]; engines?: EngineOption[] }> {
  if (!options.method?.length) return {};
  // full, S and S+TopN are the sweep's own rows; a method retaining units beside a summary runs as an engine.
  const own = new Set(["full", "summary", "summary+top"]);
  const native = (name: string) => !own.has(name) && declaredMethod(name)?.retain === undefined;
  const selected = await selectMethods({ method: options.method }, [], native);
  if (selected.engines.length > 0 && ceilingSweep) {
    throw new UsageError(
      "--method with an engine takes one --input-cap (engines are compacted to one ceiling)",
    );
  }
  return { methods: selected.methods, ...(selected.engines.length > 0 ? { engines: selected.engines } : {}) };
}

/** `sweep run`: returns the run directory. */
export async function sweepRunCommand(
  options: SweepRunCommandOptions,
  invocation: RunInvocation,
): Promise<string> {
  refuseWithRetry(options);
  await assertSandboxAvailable();
  const fixture = await resolveSweepCase(options);
  if (fixture.checks.kind === "module") {
    const { caseCheckNames, CaseChecksError } = await import("./case_checks.ts");
    const where = `${fixture.dir ?? fixture.name}/${fixture.checks.file}`;
    await caseCheckNames(fixture.checks.source).catch((error) => {
      if (error instanceof CaseChecksError) throw new UsageError(`${where}: ${error.message}`);
      throw error;
    });
  }
  const runOptions = {
    ...DEFAULT_SWEEP_RUN,
    ...(options.compressions !== undefined ? { compressions: options.compressions } : {}),
    ...(options["top-n"] !== undefined ? { topN: options["top-n"] } : {}),
    ...(options["input-cap"] !== undefined ? { inputCap: options["input-cap"][0] } : {}),
    // Only a sweep records its list: a single ceiling keeps the protocol (and keys) byte for byte.
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
  const finished = await runSuiteCommand({
    suite: SWEEP_SUITE,
    options,
    invocation,
    frozenFor: runOptions,
    prices: true,
    // Outside engine methods reach the chat model only through the loopback endpoint, a token per call.
    endpoint: (runOptions.engines?.length ?? 0) > 0,
    sources: { ...fixture.sources },
    prepare({ frozen, checkOnly, counter, models }) {
      // Refused (exit 2, before anything is written) when the run could not reuse the frozen run exactly.
      if (frozen && !checkOnly) {
        const p = (frozen.manifest.protocol ?? {}) as Partial<SweepRunOptions> & {
          fixture?: string;
          models?: { chat_model?: string; decision_model?: string };
        };
        const o = runOptions;
        const { chat_model, decision_model } = models.description;
        assertFrozenProtocol(frozen, [
          { option: "--trajectory (fixture sha256)", ours: fixture.hash, frozen: p.fixture },
          { option: "--summary-allowance", ours: o.summaryAllowance, frozen: p.summaryAllowance },
          { option: "--reserve", ours: o.reserve, frozen: p.reserve },
          { option: "--compressions", ours: o.compressions, frozen: p.compressions },
          { option: "--tokenizer (hash)", ours: counter.hash, frozen: frozen.manifest.tokenizer?.hash },
          { option: "chat model (--model)", ours: chat_model, frozen: p.models?.chat_model },
          { option: "summary retries", ours: o.summaryRetries, frozen: p.summaryRetries },
          { option: "decision model", ours: decision_model, frozen: p.models?.decision_model },
        ]);
        assertNoFailedCompression(
          frozen,
          (node) => node.stage === sweepSummaryStage.name || node.stage === sweepRankStage.name,
        );
      }
      return {
        protocol: { suite: "sweep", ...runOptions, fixture: fixture.hash, models: models.description },
        value: undefined,
      };
    },
    async run(context, { counter, models, prices, endpoint }) {
      const outcome = await runSweep(context, fixture, runOptions, models, counter, {
        bootstrap: options.bootstrap,
        prices,
      }, { endpoint });
      const aggregate = outcome.checkOnly
        ? ""
        : await context.run.store.getText(outcome.files["aggregate.json"]);
      const summary = outcome.checkOnly ? [] : SWEEP_SUITE.summary(aggregate);
      return {
        result: outcome,
        files: outcome.files,
        json: { "protocol.json": sweepProtocolJson(runOptions, models.description, counter, fixture) },

        check: outcome.checkOnly,
        lines: [
          ...summary,
          `compression calls: ${outcome.compressionUsage.calls}; reused nodes: ${outcome.reusedCompression}`,
        ],
      };
    },
  });
  return finished.path;
}
