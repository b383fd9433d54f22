/**
 * `compaction-bench hotpot collect|run|score`.
 *
 * @module
 */
import { z } from "zod";
import { assetPath } from "../assets.ts";
import { loadHotpot } from "../data/hotpot_load.ts";
import { UsageError } from "../errors.ts";
import { aggregateHotpot } from "../suites/hotpot/aggregate.ts";
import {
  assertQuotaMet,
  collectCorpus,
  type CollectMode,
  selectionReport,
} from "../suites/hotpot/collect_suite.ts";
import { readCorpus } from "../suites/hotpot/corpus.ts";
import { HOTPOT_METHODS, type HotpotMethod } from "../suites/hotpot/methods.ts";
import { hotpotReportMarkdown } from "../suites/hotpot/report.ts";
import { hotpotReportHtml } from "../report/hotpot_html.ts";
import { DEFAULT_HOTPOT_RUN, runHotpot } from "../suites/hotpot/run_suite.ts";
import { DEFAULT_SELECTION } from "../suites/hotpot/select.ts";
import {
  MODEL_OPTION_HELP,
  MODEL_OPTION_SPEC,
  ModelOptionsShape,
  setupModels,
} from "../suites/model_setup.ts";
import { openFrozen, withRun } from "../suites/run_lifecycle.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { sha256Hex } from "../store/hash.ts";
import { parseCommand } from "./args.ts";
import { hotpotScoreCommand } from "./hotpot_score.ts";
import { intOption } from "./numbers.ts";
import { readInputFile, statInputDirectory } from "../fs_input.ts";
import { checkHermesSessions } from "../suites/hotpot/hermes_sessions.ts";
import { refuseGiven } from "./option_rules.ts";
import {
  parseResumable,
  printCheckOnly,
  recordedOptions,
  RUN_OPTION_HELP,
  RUN_OPTION_SPEC,
  RunOptionsShape,
} from "./run_setup.ts";

/** The demo dataset shipped in fixtures/. */
export const DEMO_DATASET = assetPath("fixtures/hotpot/demo.parquet");

const MAX_SEED = 4_294_967_295;
const MAX_CHARS = 10_000_000;

const COLLECT_HELP = `compaction-bench hotpot collect [options]

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
  --scripted           deterministic real read_file calls (default)
  --live               an agent loop with the chat model (needs the --live credentials)
  --hermes-sessions DIR  import Hermes session JSON files named <question id>.json
  --tokenizer DIR      tokenizer (recorded in the manifest)
${MODEL_OPTION_HELP}
${RUN_OPTION_HELP}`;

const RUN_HELP = `compaction-bench hotpot run --corpus FILE (--reference | --live) [options]

Compacts each question's history with every method under one answer-input ceiling, asks the chat model,
and scores against gold with the official HotpotQA metrics.

Options:
  --corpus FILE        corpus.json written by 'hotpot collect'
  --methods LIST       comma-separated: ${HOTPOT_METHODS.join(",")} (default all)
  --input-cap N        complete answer-input ceiling in tokens (default ${DEFAULT_HOTPOT_RUN.inputCap}, 256 to 10000000)
  --reserve N          tokens kept free under the ceiling (default ${DEFAULT_HOTPOT_RUN.reserve}, at most 100000)
  --compressions N     compression generations per question and method (default ${DEFAULT_HOTPOT_RUN.compressions}, at most 100)
  --answers N          answers per context (default ${DEFAULT_HOTPOT_RUN.answers}, at most 100)
  --tokenizer DIR      tokenizer (default: Qwen3, embedded)
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
      tokenizer: { type: "string" },
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
      tokenizer: z.string().optional(),
    }),
  );
}

async function collect(givenArgv: string[]): Promise<number> {
  const { argv, options } = await parseResumable(["hotpot", "collect"], givenArgv, parseCollect);
  if (options.help) {
    console.log(COLLECT_HELP);
    return 0;
  }
  const modes =
    [options.scripted, options.live, options["hermes-sessions"] !== undefined].filter(Boolean).length;
  if (modes > 1) {
    throw new UsageError("hotpot collect: choose one of --scripted, --live and --hermes-sessions");
  }
  // Collection never reuses a frozen run: these options would be ignored.
  refuseGiven("hotpot collect", options, ["frozen-run", "check-only"], "not supported (nothing is reused)");
  if (!options.live) {
    const modelOptions = Object.keys(MODEL_OPTION_SPEC).filter((name) => name !== "live");
    refuseGiven(
      "hotpot collect",
      options,
      modelOptions,
      "only used with --live (no model is called otherwise)",
    );
  }
  if (options["hermes-sessions"] !== undefined) {
    await statInputDirectory(options["hermes-sessions"], "--hermes-sessions");
  }
  const datasetPath = options.dataset ?? DEMO_DATASET;
  // Recorded in corpus.json: the path as given, or a name for the embedded data that does not depend on where
  // the program is installed (so the corpus, and every key after it, is the same on every machine).
  const datasetLabel = options.dataset ?? "embedded:fixtures/hotpot/demo.parquet";
  const bytes = await readInputFile(datasetPath, "--dataset");
  const records = await loadHotpot(datasetPath, "--dataset");
  const questions = options.questions ?? DEFAULT_SELECTION.bridge + DEFAULT_SELECTION.comparison;
  const selection = {
    bridge: options.bridge ?? Math.ceil(questions / 2),
    comparison: options.comparison ?? Math.floor(questions / 2),
    seed: options.seed ?? DEFAULT_SELECTION.seed,
    minChars: options["min-chars"] ?? DEFAULT_SELECTION.minChars,
    maxChars: options["max-chars"] ?? DEFAULT_SELECTION.maxChars,
  };
  if (selection.minChars > selection.maxChars) throw new UsageError("--min-chars is larger than --max-chars");
  if (selection.bridge + selection.comparison === 0) {
    throw new UsageError("hotpot collect: --bridge 0 and --comparison 0 select no question");
  }
  // A selection that cannot fill its quotas is bad input: refuse it before anything is written.
  const selected = selectionReport(records, selection);
  assertQuotaMet(selected.report, datasetLabel);
  if (options["hermes-sessions"] !== undefined) {
    await checkHermesSessions(options["hermes-sessions"], selected.ids);
  }
  const counter = await loadTokenCounter(options.tokenizer);
  const live = options.live === true;
  const models = live ? await setupModels(options, counter) : null;
  const mode: CollectMode = live
    ? { kind: "live", chat: models!.chat, model: models!.description.chat_model }
    : options["hermes-sessions"] !== undefined
    ? { kind: "hermes", dir: options["hermes-sessions"] }
    : { kind: "scripted" };
  try {
    const finished = await withRun(
      {
        suite: "hotpot-collect",
        output: options.output,
        resume: options.resume,
        command: ["hotpot", "collect", ...argv],
        options: recordedOptions(options),
        protocol: { suite: "hotpot", stage: "collect", selection, collection: mode.kind },
        tokenizer: { name: counter.name, hash: counter.hash },
        sources: { dataset: bytes },
        quiet: options.quiet,
      },
      (context) =>
        collectCorpus(context, {
          datasetPath: datasetLabel,
          datasetSha256: sha256Hex(bytes),
          records,
          selection,
          mode,
        }),
    );
    const valid = finished.result.questions.filter((q) => q.valid).length;
    console.log(`collected ${valid}/${finished.result.questions.length} valid trajectories`);
    console.log(`corpus: ${finished.path}/corpus.json`);
  } finally {
    await models?.close();
  }
  return 0;
}

const MethodsOption = z.string().transform((text, ctx) => {
  const list = text.split(",").map((m) => m.trim()).filter(Boolean);
  const bad = list.find((m) => !(HOTPOT_METHODS as readonly string[]).includes(m));
  if (bad !== undefined || list.length === 0) {
    ctx.addIssue({
      code: "custom",
      message: `unknown method ${JSON.stringify(bad ?? text)} (expected ${HOTPOT_METHODS.join(", ")})`,
    });
    return z.NEVER;
  }
  return HOTPOT_METHODS.filter((m) => list.includes(m)) as HotpotMethod[];
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
      "input-cap": { type: "string" },
      reserve: { type: "string" },
      compressions: { type: "string" },
      answers: { type: "string" },
      tokenizer: { type: "string" },
    },
    z.object({
      ...RunOptionsShape,
      ...ModelOptionsShape,
      corpus: z.string().optional(),
      methods: MethodsOption.optional(),
      "input-cap": intOption(256, 10_000_000).optional(),
      reserve: intOption(0, 100_000).optional(),
      compressions: intOption(1, 100).optional(),
      answers: intOption(1, 100).optional(),
      tokenizer: z.string().optional(),
    }),
  );
}

/** Runs `hotpot run`; returns the exit code and the run directory (exported for the demo). */
export async function hotpotRun(givenArgv: string[]): Promise<{ code: number; path?: string }> {
  const { argv, options } = await parseResumable(["hotpot", "run"], givenArgv, parseRun);
  if (options.help) {
    console.log(RUN_HELP);
    return { code: 0 };
  }
  if (!options.corpus) {
    throw new UsageError("hotpot run: --corpus FILE is required (write one with 'hotpot collect')");
  }
  const { corpus, bytes } = await readCorpus(options.corpus);
  const checkOnly = options["check-only"] === true;
  const frozen = await openFrozen(options["frozen-run"], checkOnly);
  if (frozen && frozen.manifest.suite !== "hotpot") {
    throw new UsageError(`--frozen-run ${frozen.path} is a '${frozen.manifest.suite}' run, not a hotpot run`);
  }
  const counter = await loadTokenCounter(options.tokenizer);
  const runOptions = {
    ...DEFAULT_HOTPOT_RUN,
    methods: options.methods ?? [...HOTPOT_METHODS],
    ...(options["input-cap"] !== undefined ? { inputCap: options["input-cap"] } : {}),
    ...(options.reserve !== undefined ? { reserve: options.reserve } : {}),
    ...(options.compressions !== undefined ? { compressions: options.compressions } : {}),
    ...(options.answers !== undefined ? { answers: options.answers } : {}),
  };
  if (runOptions.reserve >= runOptions.inputCap) {
    throw new UsageError("--reserve must be smaller than --input-cap");
  }
  const models = await setupModels(options, counter, checkOnly, frozen?.manifest.protocol);
  try {
    const finished = await withRun(
      {
        suite: "hotpot",
        output: options.output,
        resume: options.resume,
        command: ["hotpot", "run", ...argv],
        options: recordedOptions(options),
        protocol: { suite: "hotpot", ...runOptions, models: models.description },
        tokenizer: { name: counter.name, hash: counter.hash },
        sources: { corpus: bytes },
        quiet: options.quiet,
        frozen,
        checkOnly,
      },
      async (context) => {
        if (context.resumed && context.run.header.sources.corpus !== sha256Hex(bytes)) {
          throw new UsageError(`--corpus ${options.corpus} differs from the corpus this run started with`);
        }
        const outcome = await runHotpot(context, corpus, runOptions, models, counter);
        const aggregates = aggregateHotpot(outcome.rows, runOptions.methods, outcome.compressionUsage);
        const protocol = {
          suite: "hotpot",
          ...runOptions,
          models: models.description,
          tokenizer: { name: counter.name, hash: counter.hash },
          corpus_sha256: sha256Hex(bytes),
          dataset_sha256: corpus.dataset.sha256,
        };
        await context.run.writeJsonFile("protocol.json", protocol);
        await context.run.writeFile("corpus.json", bytes);
        if (outcome.checkOnly) {
          // Nothing was answered: a check-only run publishes its comparison, never scores.
          await context.run.writeJsonFile("check.json", outcome.checkOnly);
          return { aggregates, check: outcome.checkOnly };
        }
        await context.run.writeJsonFile("results.json", outcome.rows);
        await context.run.writeJsonFile("aggregate.json", aggregates);
        const reportMeta = {
          corpus,
          models: models.description,
          tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
          inputCap: runOptions.inputCap,
          reserve: runOptions.reserve,
          compressions: runOptions.compressions,
          answers: runOptions.answers,
        };
        await context.run.writeFile("REPORT.md", hotpotReportMarkdown(aggregates, reportMeta));
        await context.run.writeFile("report.html", hotpotReportHtml(aggregates, reportMeta));
        return { aggregates, check: null };
      },
    );
    const { aggregates, check } = finished.result;
    if (check) {
      printCheckOnly(check, options["frozen-run"], finished.path);
      return { code: 0, path: finished.path };
    }
    for (const a of aggregates) {
      console.log(
        `${a.method.padEnd(12)} EM ${(100 * a.metrics.em).toFixed(1).padStart(5)}  F1 ${
          (100 * a.metrics.f1).toFixed(1).padStart(5)
        }  ` +
          `joint F1 ${(100 * a.metrics.joint_f1).toFixed(1).padStart(5)}  valid ${a.valid}/${a.planned}`,
      );
    }
    console.log(`\nrun: ${finished.path}\nreport: ${finished.path}/REPORT.md (and report.html)`);
    return { code: 0, path: finished.path };
  } finally {
    await models.close();
  }
}

/** Dispatches `hotpot collect|run|score`. */
export async function hotpotCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "collect") return await collect(rest);
  if (sub === "run") return (await hotpotRun(rest)).code;
  if (sub === "score") return await hotpotScoreCommand(rest);
  if (sub === undefined || sub === "--help" || sub === "-h") {
    console.log("compaction-bench hotpot collect|run|score [options]   (see 'hotpot SUBCOMMAND --help')");
    return sub === undefined ? 2 : 0;
  }
  throw new UsageError(`hotpot: unknown subcommand '${sub}' (expected collect, run or score)`);
}
