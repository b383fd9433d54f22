/**
 * What `engines run` does once its options are parsed: import (or describe) the transcript before anything is
 * written, and hand the suite's pieces (the check of every engine spec once the models are open, its protocol
 * and body) to the one run set-up (`../run_command.ts`), which sets up the tokenizer and the models and runs it.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import { readInputFile } from "../../fs_input.ts";
import { refuseGiven } from "../../core/option_rules.ts";
import { passedSecrets } from "../../core/secrets.ts";

/** The options of a generated transcript: ignored, so refused, when a transcript is imported. */
const GENERATOR_OPTIONS = ["turns", "needles", "words-per-msg", "needle-depths", "seed"];
import { BUILTIN_ENGINES, createEngine, parseEngineSelection } from "../../methods/engines/create.ts";
import { importTranscript } from "../../data/transcripts/import.ts";
import { readHermesProbes } from "../../data/transcripts/hermes_probes.ts";
import { type BudgetSpec, type ContextLengthSpec, DEFAULT_BUDGET } from "./budgets.ts";
import type { TranscriptFormat } from "../../data/transcripts/types.ts";
import { runSuiteCommand } from "../run_command.ts";
import type { RunCommandOptions, RunInvocation } from "../run_lifecycle.ts";
import { ENGINES_SUITE } from "./definition.ts";
import type { GenerateParamsInput } from "./generate.ts";
import { runEnginesSuite, type TranscriptSource } from "./suite.ts";
import { readPassedEnv } from "../../methods/engines/passed_env.ts";
import { DEFAULT_RECOVERY_ROUNDS } from "./recovery.ts";

/** The parsed options of `engines run`. */
export interface EnginesRunCommandOptions extends RunCommandOptions {
  engine?: string[];
  "engine-env"?: string[];
  hermes?: string;
  probes?: string;
  transcript?: string;
  format?: "auto" | TranscriptFormat;
  repeats?: number;
  budget?: BudgetSpec[];
  "context-length"?: ContextLengthSpec[];
  "engine-timeout-ms"?: number;
  "no-qa"?: boolean;
  "recovery-rounds"?: number;
  tokenizer?: string;
  bootstrap?: number;
}

/** `engines run`: returns the run directory. `generator` holds the generated transcript's settings. */
export async function enginesRunCommand(
  options: EnginesRunCommandOptions,
  invocation: RunInvocation,
  generator: () => GenerateParamsInput,
): Promise<string> {
  if (options["check-only"]) {
    throw new UsageError(
      "engines run: --check-only is not supported (engine timings are always measured afresh)",
    );
  }
  if (options["retry-failed"]) {
    throw new UsageError(
      "engines run: --retry-failed is not supported (engine timings are always measured afresh)",
    );
  }
  if (options.resume) {
    throw new UsageError(
      "engines run: --resume is not supported (latencies of a killed run are not comparable)",
    );
  }
  let source: TranscriptSource;
  const sources: Record<string, Uint8Array> = {};
  if (options.transcript) {
    refuseGiven("engines run", options, GENERATOR_OPTIONS, "only used without --transcript");
  } else {
    refuseGiven("engines run", options, ["format"], "only used with --transcript");
  }
  if (options.transcript) {
    // Imported (and so validated, with clear errors) before the run directory is created: bad input writes
    // nothing. The file's bytes are then declared as the run's source.
    const transcript = await importTranscript(options.transcript, options.format ?? "auto");
    sources.transcript = await readInputFile(options.transcript, "--transcript");
    source = { kind: "imported", path: options.transcript, format: options.format ?? "auto", transcript };
  } else {
    source = { kind: "generated", params: generator() };
  }
  let probes: { path: string; probes: Awaited<ReturnType<typeof readHermesProbes>>["probes"] } | undefined;
  if (options.probes) {
    probes = { path: options.probes, probes: (await readHermesProbes(options.probes)).probes };
    sources.probes = await readInputFile(options.probes, "--probes");
  }
  const engines = (options.engine ?? [...BUILTIN_ENGINES]).map(parseEngineSelection);
  const seenNames = new Set<string>();
  for (const { name } of engines) {
    if (seenNames.has(name)) throw new UsageError(`--engine ${name} is given twice; name them NAME=SPEC`);
    seenNames.add(name);
  }
  const engineEnv = readPassedEnv(options["engine-env"] ?? [], "--engine-env");
  const hermesDir = options.hermes;
  if (hermesDir !== undefined) {
    const info = await Deno.stat(hermesDir).catch((error) => {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) return null;
      throw error;
    });
    if (info === null || !info.isDirectory) {
      throw new UsageError(`--hermes ${hermesDir}: not a directory (expected a Hermes Agent checkout)`);
    }
  }
  const engineLabels = engines.map(({ name, spec }) => name === spec ? spec : `${name}=${spec}`);
  const repeats = options.repeats ?? 3;
  const finished = await runSuiteCommand({
    suite: ENGINES_SUITE,
    options,
    invocation,
    frozenFor: { engines: engineLabels, repeats },
    // Outside engines reach the chat model only through the loopback endpoint, with a token per call.
    endpoint: true,
    sources,
    prepare({ models }) {
      // Every engine spec is checked before the run directory is created: bad input writes nothing.
      for (const { name, spec } of engines) {
        createEngine(spec, {
          chat: models.chat,
          decision: models.decision,
          timeoutMs: options["engine-timeout-ms"] ?? 60_000,
          env: engineEnv,
          hermesDir,
        }, name);
      }
      return {
        protocol: {
          suite: "engines",
          engines: engineLabels,
          engine_env: Object.keys(engineEnv).sort(),
          repeats,
          budget: targets(options).map((b) => b.label),
          context_length: options["context-length"]?.map((b) => b.tokens) ?? null,
          probes: probes ? probes.probes.length : null,
          qa: !options["no-qa"],
          recovery_rounds: options["recovery-rounds"] ?? DEFAULT_RECOVERY_ROUNDS,
          models: models.description,
        },
        secrets: passedSecrets("--engine-env", engineEnv),
        value: undefined,
      };
    },
    async run(context, { counter, models, endpoint }) {
      const outcome = await runEnginesSuite(
        context,
        {
          transcript: source,
          engines,
          repeats,
          budgets: targets(options),
          timeoutMs: options["engine-timeout-ms"],
          maxOutputBytes: options["max-response-bytes"],
          qa: !options["no-qa"],
          recoveryRounds: options["recovery-rounds"] ?? DEFAULT_RECOVERY_ROUNDS,
          probes,
          engineEnv,
          hermesDir,
          endpoint,
          bootstrap: options.bootstrap,
        },
        models,
        counter,
      );
      return { result: outcome, files: outcome.files, lines: [outcome.table] };
    },
  });
  return finished.path;
}

/**
 * What every engine is measured at: the `--budget` list, then the `--context-length` list; a context length
 * alone measures no default budget.
 */
function targets(options: EnginesRunCommandOptions): BudgetSpec[] {
  const lengths = options["context-length"] ?? [];
  return [...(options.budget ?? (lengths.length > 0 ? [] : [DEFAULT_BUDGET])), ...lengths];
}
