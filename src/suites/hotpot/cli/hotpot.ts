/**
 * `compaction-bench hotpot collect|run|score|generate`.
 *
 * @module
 */
import { HOTPOT_COLLECT_SUITE, HOTPOT_SUITE } from "../definition.ts";
import { BOOTSTRAP_OPTION_HELP, bootstrapOption } from "../../../cli/stats_options.ts";
import { PRICE_OPTION_HELP, PRICE_OPTION_SPEC, PriceOptionsShape } from "../../../cli/price_options.ts";
import { z } from "zod";
import { UsageError } from "../../../errors.ts";
import { DEMO_DATASET, hotpotCollect, hotpotRunCommand } from "../command.ts";
import { HOTPOT_METHODS } from "../run/methods.ts";
import { BUILTIN_ENGINES, REAL_COMPETITORS } from "../../../methods/engines/create.ts";
import { DEFAULT_HOTPOT_RUN } from "../run/run_suite.ts";
import { DEFAULT_SELECTION } from "../collect/select.ts";
import { MODEL_OPTION_HELP, MODEL_OPTION_SPEC, ModelOptionsShape } from "../../../cli/model_options.ts";
import { SHARD_OPTION_HELP, ShardOption } from "../../../pipeline/shard.ts";
import { parseCommand } from "../../../cli/args.ts";
import { hotpotScoreCommand } from "./score.ts";
import { intListOption, intOption } from "../../../cli/numbers.ts";
import {
  RUN_OPTION_HELP,
  RUN_OPTION_SPEC,
  RunOptionsShape,
  runResumableCommand,
} from "../../../cli/run_setup.ts";
import { COLLECTION_MODE_HELP } from "./collect_mode.ts";
import { CLI } from "../../../core/program_name.ts";
import { hotpotPredictionsCommand } from "./predictions.ts";

export { DEMO_DATASET };

const MAX_SEED = 4_294_967_295;
const MAX_CHARS = 10_000_000;
/** The model options that apply to a collection (--live is a collection mode, listed once with the modes). */
const COLLECT_MODEL_HELP = MODEL_OPTION_HELP.split("\n")
  .filter((line) => !/^ {2}--(live|reference|reference-delay-ms)\b/.test(line)).join("\n");

const COLLECT_HELP = `${CLI} hotpot collect [options]

Freezes the question selection (before any model call) and collects each question's trajectory: the agent
reads the ten articles through read_file tool calls. Writes corpus.json (dataset hash, protocol, filter
counts, trajectories; gold labels kept apart) into the run directory.

Options:
  --dataset FILE       HotpotQA distractor records, Hugging Face Parquet or official JSON
                       (default: the embedded demo data)
  --questions N        questions in all, half bridge and half comparison (default 30, at most 100000)
  --bridge N, --comparison N   per-type quotas (override --questions; each at most 100000)
  --seed N             selection seed (default ${DEFAULT_SELECTION.seed}, at most ${MAX_SEED})
  --min-chars N, --max-chars N evidence characters (default ${DEFAULT_SELECTION.minChars}–${DEFAULT_SELECTION.maxChars}, at most ${MAX_CHARS})
  --tokenizer DIR      tokenizer (recorded in the manifest)
${SHARD_OPTION_HELP}
                       (by question id hash; the selection stays whole, corpus.json holds the part)

Collection mode (one is required for any dataset but the embedded demo, where --scripted is the default;
the mode is recorded in corpus.json and named in every report):
${COLLECTION_MODE_HELP}

Model options (for --live):
${COLLECT_MODEL_HELP}
${RUN_OPTION_HELP}

Exit codes: 0 at least one valid trajectory (or a shard whose part holds no question), 1 none valid (the run
is still written), 2 bad input.`;

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
  --tokenizer DIR      tokenizer (default: Qwen3, embedded)
${SHARD_OPTION_HELP} (by question id hash)
${BOOTSTRAP_OPTION_HELP}
${PRICE_OPTION_HELP}
${MODEL_OPTION_HELP}
${RUN_OPTION_HELP}`;

function parseCollect(argv: string[]) {
  return parseCommand(
    "hotpot collect",
    argv,
    {
      ...RUN_OPTION_SPEC,
      ...MODEL_OPTION_SPEC,
      dataset: { type: "string" },
      questions: { type: "string" },
      bridge: { type: "string" },
      comparison: { type: "string" },
      seed: { type: "string" },
      "min-chars": { type: "string" },
      "max-chars": { type: "string" },
      scripted: { type: "boolean" },
      "hermes-sessions": { type: "string" },
      agent: { type: "string" },
      "agent-timeout": { type: "string" },
      "agent-system-prompt": { type: "string" },
      "agent-env": { type: "string", multiple: true },
      tokenizer: { type: "string" },
      shard: { type: "string" },
    },
    z.object({
      ...RunOptionsShape,
      ...ModelOptionsShape,
      dataset: z.string().optional(),
      questions: intOption(1, 100_000).optional(),
      bridge: intOption(0, 100_000).optional(),
      comparison: intOption(0, 100_000).optional(),
      seed: intOption(0, MAX_SEED).optional(),
      "min-chars": intOption(0, MAX_CHARS).optional(),
      "max-chars": intOption(1, MAX_CHARS).optional(),
      scripted: z.boolean().optional(),
      "hermes-sessions": z.string().optional(),
      agent: z.string().optional(),
      "agent-timeout": intOption(1, 86_400).optional(),
      "agent-system-prompt": z.string().optional(),
      "agent-env": z.array(z.string().min(1)).optional(),
      tokenizer: z.string().optional(),
      shard: ShardOption.optional(),
    }),
  );
}

async function collect(givenArgv: string[]): Promise<number> {
  await runResumableCommand(HOTPOT_COLLECT_SUITE, givenArgv, parseCollect, COLLECT_HELP, hotpotCollect);
  return 0;
}

const MethodsOption = z.string().transform((text, ctx) => {
  const list = text.split(",").map((m) => m.trim()).filter(Boolean);
  if (list.length === 0) {
    ctx.addIssue({ code: "custom", message: `no method in ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return list;
});

/** Runs `hotpot run`; exported for the demo. */
function parseRun(argv: string[]) {
  return parseCommand(
    "hotpot run",
    argv,
    {
      ...RUN_OPTION_SPEC,
      ...MODEL_OPTION_SPEC,
      corpus: { type: "string" },
      methods: { type: "string" },
      method: { type: "string", multiple: true },
      "input-cap": { type: "string" },
      reserve: { type: "string" },
      compressions: { type: "string" },
      answers: { type: "string" },
      tokenizer: { type: "string" },
      shard: { type: "string" },
      bootstrap: { type: "string" },
      ...PRICE_OPTION_SPEC,
    },
    z.object({
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
    }),
  );
}

/** Runs `hotpot run`; returns the exit code and the run directory (exported for the demo). */
export async function hotpotRun(givenArgv: string[]): Promise<{ code: number; path?: string }> {
  return {
    code: 0,
    path: await runResumableCommand(HOTPOT_SUITE, givenArgv, parseRun, RUN_HELP, hotpotRunCommand),
  };
}

/** Dispatches `hotpot collect|run|score|generate`. */
export async function hotpotCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "collect") return await collect(rest);
  if (sub === "run") return (await hotpotRun(rest)).code;
  if (sub === "score") return await hotpotScoreCommand(rest);
  // Its own import: the Parquet writer is loaded only by the command that writes Parquet.
  if (sub === "generate") return await (await import("./generate.ts")).hotpotGenerateCommand(rest);
  if (sub === "predictions") return await hotpotPredictionsCommand(rest);
  if (sub === undefined || sub === "--help" || sub === "-h") {
    console.log(
      `${CLI} hotpot collect|run|score|generate|predictions [options]   (see '${CLI} hotpot SUBCOMMAND --help')`,
    );
    return sub === undefined ? 2 : 0;
  }
  throw new UsageError(
    `hotpot: unknown subcommand '${sub}' (expected collect, run, score, generate or predictions)`,
  );
}
