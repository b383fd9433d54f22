/**
 * `engines run`'s options and handler: import the transcript before anything is written, and hand the suite's
 * pieces (the engine specs' check, its protocol and body) to the one run set-up (`src/suites/run_command.ts`).
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import { INPUT_MAX_BYTES, readInputFile } from "../../fs_input.ts";
import { refuseGiven } from "../../core/option_rules.ts";
import { passedSecrets } from "../../core/secrets.ts";
import { createEngine } from "../../methods/engines/create.ts";
import { BUILTIN_ENGINES, parseEngineSelection } from "../../methods/engines/engine_names.ts";
import { importTranscript } from "../../data/transcripts/import.ts";
import { readHermesProbes } from "../../data/transcripts/hermes_probes.ts";
import { budgetListOption, contextLengthListOption, DEFAULT_BUDGET } from "../../suites/engines/budgets.ts";
import type { ImportedTranscript, Probe } from "../../data/transcripts/types.ts";
import { runSuiteCommand } from "../../suites/run_command.ts";
import type { RunInvocation } from "../../suites/run_lifecycle.ts";
import { ENGINES_SUITE } from "../../suites/engines/definition.ts";
import { runEnginesSuite, type TranscriptSource } from "../../suites/engines/suite.ts";
import { readPassedEnv } from "../../methods/engines/split_command.ts";
import { DEFAULT_RECOVERY_ROUNDS } from "../../suites/engines/recovery.ts";
import { ModelOptionsShape } from "../model_options.ts";
import { bootstrapOption, fractionListOption, intOption } from "../numbers.ts";
import { RunOptionsShape } from "../run_setup.ts";

/** Turns × words per message at most: a bound on the generated transcript's size (and memory). */
export const MAX_GENERATED_WORDS = 2_000_000;

/** The options of a generated transcript (`engines run` without --transcript, `engines generate`). */
export const GeneratorShape = {
  turns: intOption(1, 100_000).optional(),
  needles: intOption(0, 999).optional(),
  "words-per-msg": intOption(1, 10_000).optional(),
  "needle-depths": fractionListOption.optional(),
  seed: z.string().optional(),
};

/** The generator's parameters from its options; refuses an inconsistent or too large transcript. */
export function generatorParams(o: z.infer<z.ZodObject<typeof GeneratorShape>>) {
  if (o["needle-depths"] && o.needles !== undefined && o["needle-depths"].length !== o.needles) {
    throw new UsageError(
      `--needle-depths gives ${o["needle-depths"].length} depth(s) but --needles is ${o.needles}`,
    );
  }
  const turns = o.turns ?? 200;
  const words = o["words-per-msg"] ?? 60;
  if (turns * words > MAX_GENERATED_WORDS) {
    throw new UsageError(
      `--turns ${turns} × --words-per-msg ${words} = ${turns * words} words, more than the ` +
        `${MAX_GENERATED_WORDS} allowed`,
    );
  }
  return {
    turns,
    needles: o.needles ?? o["needle-depths"]?.length ?? 12,
    wordsPerMsg: words,
    ...(o["needle-depths"] ? { needleDepths: o["needle-depths"] } : {}),
    seed: o.seed ?? "compaction-bench",
  };
}

/** The options of `engines run`. */
export const EnginesRunShape = {
  ...RunOptionsShape,
  ...ModelOptionsShape,
  ...GeneratorShape,
  engine: z.array(z.string().min(1)).optional(),
  "engine-env": z.array(z.string().min(1)).optional(),
  hermes: z.string().min(1).optional(),
  probes: z.string().min(1).optional(),
  transcript: z.string().optional(),
  format: z.enum(["auto", "openai", "hermes-session", "sharegpt", "locomo"]).optional(),
  sample: z.array(z.string().min(1)).optional(),
  repeats: intOption(0, 1000).optional(),
  budget: budgetListOption.optional(),
  "context-length": contextLengthListOption.optional(),
  "engine-timeout-ms": intOption(1, 3_600_000).optional(),
  "no-qa": z.boolean().optional(),
  "recovery-rounds": intOption(0, 8).optional(),
  tokenizer: z.string().optional(),
  bootstrap: bootstrapOption.optional(),
};
type EnginesRunOptions = z.infer<z.ZodObject<typeof EnginesRunShape>>;

/** `engines run`: returns the run directory. */
export async function enginesRunCommand(
  options: EnginesRunOptions,
  invocation: RunInvocation,
): Promise<string> {
  const afresh = "engine timings are always measured afresh";
  const killed = "latencies of a killed run are not comparable";
  for (const [flag, why] of [["check-only", afresh], ["retry-failed", afresh], ["resume", killed]] as const) {
    if (options[flag]) throw new UsageError(`engines run: --${flag} is not supported (${why})`);
  }
  let source: TranscriptSource;
  const sources: Record<string, Uint8Array> = {};
  if (options.transcript) {
    // The generator's options are ignored, so refused, when a transcript is imported.
    refuseGiven("engines run", options, Object.keys(GeneratorShape), "only used without --transcript");
    // Imported (so validated) before the run directory is created: bad input writes nothing.
    const format = options.format ?? "auto";
    const transcript = await importTranscript(options.transcript, format);
    sources.transcript = await readInputFile(options.transcript, "--transcript");
    source = { kind: "imported", path: options.transcript, format, transcript };
    if (options.sample !== undefined) {
      const chosen = sampleIndices(options.sample, transcript, options.transcript);
      source.samples = [];
      for (const sample of chosen) {
        const imported = sample === 0
          ? transcript
          : await importTranscript(options.transcript, format, { sample });
        source.samples.push({ sample, transcript: imported });
      }
    }
  } else {
    refuseGiven("engines run", options, ["format", "sample"], "only used with --transcript");
    source = { kind: "generated", params: generatorParams(options) };
  }
  let probes: { path: string; probes: Probe[] } | undefined;
  if (options.probes) {
    probes = { path: options.probes, probes: await readHermesProbes(options.probes) };
    sources.probes = await readInputFile(options.probes, "--probes", INPUT_MAX_BYTES.probes);
  }
  const engines = (options.engine ?? [...BUILTIN_ENGINES]).map(parseEngineSelection);
  const twice = engines.find(({ name }, i) => engines.findIndex((e) => e.name === name) < i);
  if (twice) throw new UsageError(`--engine ${twice.name} is given twice; name them NAME=SPEC`);
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
  // The --budget list, then the --context-length list; a context length alone measures no default budget.
  const lengths = options["context-length"] ?? [];
  const budgets = [...(options.budget ?? (lengths.length > 0 ? [] : [DEFAULT_BUDGET])), ...lengths];
  const qa = !options["no-qa"];
  const recoveryRounds = options["recovery-rounds"] ?? DEFAULT_RECOVERY_ROUNDS;
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
      const protocol = {
        suite: "engines",
        engines: engineLabels,
        engine_env: Object.keys(engineEnv).sort(),
        repeats,
        budget: budgets.map((b) => b.label),
        context_length: options["context-length"]?.map((b) => b.tokens) ?? null,
        probes: probes ? probes.probes.length : null,
        ...(source.kind === "imported" && source.samples
          ? { samples: source.samples.map(({ sample }) => sample) }
          : {}),
        questions_per_prompt: 1,
        qa,
        recovery_rounds: recoveryRounds,
        models: models.description,
      };
      return { protocol, secrets: passedSecrets("--engine-env", engineEnv), value: protocol };
    },
    async run(context, { counter, models, endpoint }, protocol) {
      const outcome = await runEnginesSuite(
        context,
        {
          transcript: source,
          engines,
          repeats,
          budgets,
          timeoutMs: options["engine-timeout-ms"],
          maxOutputBytes: options["max-response-bytes"],
          qa,
          recoveryRounds,
          probes,
          engineEnv,
          hermesDir,
          endpoint,
          bootstrap: options.bootstrap,
        },
        models,
        counter,
      );
      return {
        result: outcome,
        json: { "protocol.json": protocol },
        files: outcome.files,
        lines: [outcome.table],
      };
    },
  });
  return finished.path;
}

/**
 * The indices `--sample` names (`all`, or whole numbers from 0) of the transcripts `transcript`'s file holds
 * (LoCoMo conversations, ShareGPT trajectories), in the order given; refused when out of range.
 */
function sampleIndices(values: readonly string[], transcript: ImportedTranscript, path: string): number[] {
  const held = transcript.meta.samples ?? transcript.meta.trajectories;
  const count = typeof held === "number" && Number.isInteger(held) && held > 0 ? held : 1;
  if (values.includes("all")) {
    if (values.length > 1) throw new UsageError("--sample all takes every conversation; give it alone");
    return Array.from({ length: count }, (_, i) => i);
  }
  const out: number[] = [];
  for (const value of values) {
    const index = /^[0-9]{1,6}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(index)) {
      throw new UsageError(
        `--sample ${JSON.stringify(value)}: expected a conversation index (0 = the first) or all`,
      );
    }
    if (index >= count) {
      throw new UsageError(
        `--sample ${index}: ${path} holds ${count} conversation${count === 1 ? "" : "s"} (indices 0-${
          count - 1
        })`,
      );
    }
    if (out.includes(index)) throw new UsageError(`--sample ${index} is given twice`);
    out.push(index);
  }
  return out;
}
