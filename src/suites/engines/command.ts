/**
 * What `engines run` does once its options are parsed: import (or describe) the transcript and check every
 * engine spec before anything is written, set up the tokenizer and the models, and run the suite through the
 * one life cycle.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import { readInputFile } from "../../fs_input.ts";
import { refuseGiven } from "../../cli/option_rules.ts";

/** The options of a generated transcript: ignored, so refused, when a transcript is imported. */
const GENERATOR_OPTIONS = ["turns", "needles", "words-per-msg", "needle-depths", "seed"];
import { BUILTIN_ENGINES, createEngine } from "../../methods/engines/create.ts";
import { importTranscript } from "../../data/transcripts/import.ts";
import type { TranscriptFormat } from "../../data/transcripts/types.ts";
import { loadTokenCounter } from "../../tokens/load.ts";
import { setupModels } from "../model_setup.ts";
import { openFrozenFor, type RunCommandOptions, runSuite } from "../run_lifecycle.ts";
import { ENGINES_SUITE } from "./definition.ts";
import type { GenerateParamsInput } from "./generate.ts";
import { runEnginesSuite, type TranscriptSource } from "./suite.ts";

/** The parsed options of `engines run`. */
export interface EnginesRunCommandOptions extends RunCommandOptions {
  engine?: string[];
  transcript?: string;
  format?: "auto" | TranscriptFormat;
  repeats?: number;
  budget?: number;
  "engine-timeout-ms"?: number;
  "no-qa"?: boolean;
  tokenizer?: string;
}

/** `engines run`: returns the run directory. `generator` holds the generated transcript's settings. */
export async function enginesRunCommand(
  options: EnginesRunCommandOptions,
  argv: string[],
  generator: () => GenerateParamsInput,
): Promise<string> {
  if (options["check-only"]) {
    throw new UsageError(
      "engines run: --check-only is not supported (engine timings are always measured afresh)",
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
  const engines = options.engine ?? [...BUILTIN_ENGINES];
  const repeated = engines.find((spec, i) => engines.indexOf(spec) !== i);
  if (repeated !== undefined) {
    throw new UsageError(`engines run: --engine ${repeated} is given twice (each engine is measured once)`);
  }
  const counter = await loadTokenCounter(options.tokenizer);
  const repeats = options.repeats ?? 3;
  const frozen = await openFrozenFor(ENGINES_SUITE, options["frozen-run"], false, { engines, repeats });
  const models = await setupModels(options, counter);
  try {
    // Every engine spec is checked before the run directory is created: bad input writes nothing.
    for (const spec of engines) {
      createEngine(spec, {
        chat: models.chat,
        decision: models.decision,
        timeoutMs: options["engine-timeout-ms"] ?? 60_000,
      });
    }
  } catch (error) {
    await models.close();
    throw error;
  }
  const finished = await runSuite(
    {
      suite: ENGINES_SUITE,
      argv,
      options: { ...options },
      output: options.output,
      quiet: options.quiet,
      frozen,
      protocol: {
        suite: "engines",
        engines,
        repeats,
        budget: options.budget ?? "25% of input tokens",
        qa: !options["no-qa"],
        models: models.description,
      },
      tokenizer: { name: counter.name, hash: counter.hash },
      sources,
      models,
    },
    async (context) => {
      const outcome = await runEnginesSuite(
        context,
        {
          transcript: source,
          engines,
          repeats,
          budgetTokens: options.budget,
          timeoutMs: options["engine-timeout-ms"],
          qa: !options["no-qa"],
        },
        models,
        counter,
      );
      return { result: outcome, files: outcome.files, lines: [outcome.table] };
    },
  );
  return finished.path;
}
