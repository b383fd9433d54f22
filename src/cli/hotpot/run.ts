/**
 * `compaction-bench hotpot run`: its options, help and parsing.
 * @module
 */
import { HOTPOT_SUITE } from "../../suites/hotpot/definition.ts";
import { PRICE_OPTION_HELP, PriceOptionsShape } from "../price_options.ts";
import { z } from "zod";
import { hotpotRunCommand } from "../../suites/hotpot/command.ts";
import { HOTPOT_METHODS } from "../../suites/hotpot/run/methods.ts";
import { BUILTIN_ENGINES, REAL_COMPETITORS } from "../../methods/engines/engine_names.ts";
import { DEFAULT_HOTPOT_RUN } from "../../suites/hotpot/run/run_suite.ts";
import { MODEL_OPTION_HELP, ModelOptionsShape } from "../model_options.ts";
import { SHARD_OPTION_HELP, ShardOption } from "../../pipeline/shard.ts";
import { parseOptions } from "../args.ts";
import { BOOTSTRAP_OPTION_HELP, bootstrapOption, intListOption, intOption } from "../numbers.ts";
import { RUN_EXIT_HELP, RUN_OPTION_HELP, RunOptionsShape, runResumableCommand } from "../run_setup.ts";
import { CLI } from "../../core/program_name.ts";

const RUN_HELP = `${CLI} hotpot run --corpus FILE (--reference | --live) [options]

Compacts each question's history with every method under one answer-input ceiling, asks the chat model,
and scores against gold with the official HotpotQA metrics.

Options:
  --corpus FILE        corpus.json written by 'hotpot collect'
  --methods LIST       comma-separated: ${HOTPOT_METHODS.join(",")} (default), or any engine
                       name (${
  BUILTIN_ENGINES.filter((e) => !(HOTPOT_METHODS as readonly string[]).includes(e)).join(", ")
}, ${Object.keys(REAL_COMPETITORS).join(", ")})
  --method [NAME=]SPEC repeatable: adds a method or any engine spec (as 'engines run --engine', exec:COMMAND
                       and http:URL included); an engine compacts the public history to the budget left
                       under the ceiling once the question is counted; model-free engines (full,
                       truncate) are compacted once (one generation)
  --input-cap N[,N..]  complete answer-input ceiling in tokens (default ${DEFAULT_HOTPOT_RUN.inputCap}, 256 to 10000000);
                       a list (2400,3600,5400) sweeps: every compressed method at each ceiling in one run,
                       rankings shared, Full answered once; the first ceiling is the primary one
  --reserve N          tokens kept free under the ceiling (default ${DEFAULT_HOTPOT_RUN.reserve}, at most 100000)
  --compressions N     compression generations per question and method (default ${DEFAULT_HOTPOT_RUN.compressions}, at most 100)
  --answers N          answers per context (default ${DEFAULT_HOTPOT_RUN.answers}, at most 100)
  --tokenizer PATH     tokenizer directory or its tokenizer.json (default: Qwen3, embedded)
${SHARD_OPTION_HELP} (by question id hash)
${BOOTSTRAP_OPTION_HELP}
${PRICE_OPTION_HELP}
${MODEL_OPTION_HELP}
${RUN_OPTION_HELP}

${RUN_EXIT_HELP}`;

const MethodsOption = z.string().transform((text, ctx) => {
  const list = text.split(",").map((m) => m.trim()).filter(Boolean);
  if (list.length === 0) {
    ctx.addIssue({ code: "custom", message: `no method in ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return list;
});

/** Runs `hotpot run`; returns the exit code. */
export async function hotpotRun(argv: string[]): Promise<number> {
  const parse = (words: string[]) =>
    parseOptions("hotpot run", words, {
      ...RunOptionsShape,
      ...ModelOptionsShape,
      corpus: z.string().optional(),
      methods: MethodsOption.optional(),
      method: z.array(z.string().min(1)).optional(),
      "input-cap": intListOption(256, 10_000_000).optional(),
      reserve: intOption(0, 100_000).optional(),
      compressions: intOption(1, 100).optional(),
      answers: intOption(1, 100).optional(),
      tokenizer: z.string().optional(),
      shard: ShardOption.optional(),
      bootstrap: bootstrapOption.optional(),
      ...PriceOptionsShape,
    });
  await runResumableCommand(HOTPOT_SUITE, argv, parse, RUN_HELP, hotpotRunCommand);
  return 0;
}
