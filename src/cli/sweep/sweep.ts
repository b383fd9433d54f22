/**
 * `compaction-bench sweep run`: a frozen summary plus the decision model's Top-N evidence units.
 * @module
 */
import { SWEEP_SUITE } from "../../suites/sweep/definition.ts";
import { PRICE_OPTION_HELP, PriceOptionsShape } from "../price_options.ts";
import { z } from "zod";
import { MODEL_OPTION_HELP, ModelOptionsShape } from "../model_options.ts";
import { DEFAULT_SWEEP_RUN } from "../../suites/sweep/run_suite.ts";
import { sweepRunCommand } from "../../suites/sweep/command.ts";
import { dispatch, parseOptions } from "../args.ts";
import { SHARD_OPTION_HELP, ShardOption } from "../../pipeline/shard.ts";
import { BOOTSTRAP_OPTION_HELP, bootstrapOption, intListOption, intOption, rangeOption } from "../numbers.ts";
import { RUN_EXIT_HELP, RUN_OPTION_HELP, RunOptionsShape, runResumableCommand } from "../run_setup.ts";
import { CLI } from "../../core/program_name.ts";

const HELP = `${CLI} sweep run (--reference | --live) [options]

For each generation, freezes one summary S of all evidence and one decision-model ranking (neither sees the
follow-up or the gold), then answers the follow-up from full, S and S + Top N, and scores each answer with ten
exact fact checks and six executable repair checks run in a sandbox.

Options:
  --case DIR           a sweep case folder (case.json, its trajectory and checks; see docs/SWEEP_CASES.md);
                       default: the built-in payment case. Repeatable with --trajectory
  --trajectory FILE    run the case whose pinned trajectory this file is (the built-in cases and the
                       --case folders are searched); any other file is refused, naming its SHA-256
  --compressions N     generations of (S, ranking) (default ${DEFAULT_SWEEP_RUN.compressions}, at most 100)
  --top-n RANGE        N values, e.g. 1-5 (at most 10; default 1-5)
  --method [NAME=]SPEC repeatable: adds a method or any engine (as 'engines run --engine', exec:COMMAND and
                       http:URL included) beside full, S and S+TopN, under the same ceiling, scored by
                       the fact and repair checks; model-free engines are compacted once
  --input-cap N[,N..]  ceiling of the complete answer input (default ${DEFAULT_SWEEP_RUN.inputCap}, 256 to 10000000);
                       several (e.g. 2400,3800,5400): a ceiling sweep in one run (summaries and rankings
                       shared, Full answered once); the first is the primary ceiling of the main tables
  --summary-allowance N  complete input allowance of S alone (default ${DEFAULT_SWEEP_RUN.summaryAllowance}, 128 to 10000000)
  --reserve N          tokens kept free under the ceilings (default ${DEFAULT_SWEEP_RUN.reserve}, at most 100000)
  --answers N          answers per context (default ${DEFAULT_SWEEP_RUN.answers}, at most 100)
  --tokenizer PATH     tokenizer directory or its tokenizer.json (default: Qwen3, embedded)
${SHARD_OPTION_HELP} (generation g is in part g mod N)
${BOOTSTRAP_OPTION_HELP}
${PRICE_OPTION_HELP}
${MODEL_OPTION_HELP}
${RUN_OPTION_HELP}

${RUN_EXIT_HELP}`;

function parseRun(argv: string[]) {
  return parseOptions("sweep run", argv, {
    ...RunOptionsShape,
    ...ModelOptionsShape,
    trajectory: z.string().optional(),
    case: z.array(z.string().min(1)).optional(),
    compressions: intOption(1, 100).optional(),
    "top-n": rangeOption(1, 10).optional(),
    method: z.array(z.string().min(1)).optional(),
    "input-cap": intListOption(256, 10_000_000).optional(),
    "summary-allowance": intOption(128, 10_000_000).optional(),
    reserve: intOption(0, 100_000).optional(),
    answers: intOption(1, 100).optional(),
    tokenizer: z.string().optional(),
    shard: ShardOption.optional(),
    bootstrap: bootstrapOption.optional(),
    ...PriceOptionsShape,
  });
}

export function sweepCommand(argv: string[]): Promise<number> {
  return dispatch(
    "sweep",
    argv,
    {
      run: async (rest) => {
        await runResumableCommand(SWEEP_SUITE, rest, parseRun, HELP, sweepRunCommand);
        return 0;
      },
      case: async (rest) => await (await import("./case_check.ts")).sweepCaseCommand(rest),
    },
    `${CLI} sweep run [options]   (see '${CLI} sweep run --help')
${CLI} sweep case check DIR  (checks a sweep case folder; see docs/SWEEP_CASES.md)`,
  );
}
