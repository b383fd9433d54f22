/**
 * What `hotpot collect` and `hotpot run` do once their options are parsed: validate the inputs before anything
 * is written, and hand each suite's pieces (checks, protocol, body) to the one run set-up (`../run_command.ts`),
 * which sets up the tokenizer and the models and runs the suite.
 *
 * @module
 */
import { passedSecrets } from "../../core/secrets.ts";
import { heapBudget } from "../../core/heap_budget.ts";
import { assetPath } from "../../assets.ts";
import { UsageError } from "../../errors.ts";
import { sha256Hex } from "../../store/hash.ts";
import { readInputFile } from "../../fs_input.ts";
import { refuseGiven } from "../../core/option_rules.ts";
import { refuseWithRetry, runSuiteCommand } from "../run_command.ts";
import type { RunCommandOptions, RunInvocation } from "../run_lifecycle.ts";
import { assertQuotaMet, collectCorpus, type CollectMode } from "./collect/collect_suite.ts";
import { hotpotDatasetFile } from "./collect/dataset_file.ts";
import { selectionReportOf } from "./collect/stages/select.ts";
import { checkCorpusFile } from "./corpus.ts";
import { HOTPOT_COLLECT_SUITE, HOTPOT_SUITE } from "./definition.ts";
import { HOTPOT_METHODS } from "./run/methods.ts";
import { selectMethods } from "../method_selection.ts";
import { DEFAULT_HOTPOT_RUN, runHotpot } from "./run/run_suite.ts";
import { DEFAULT_SELECTION } from "./collect/select.ts";
import { type Shard, shardText } from "../../pipeline/shard.ts";
import { assertHotpotFrozen } from "./run/frozen_protocol.ts";
import {
  agentMode,
  assertSomeValid,
  chooseCollectionMode,
  collectionSummaryLines,
  readHermesSessions,
} from "./collect/collect_mode.ts";
import { CLI } from "../../core/program_name.ts";

/** The demo dataset shipped in fixtures/. */
export const DEMO_DATASET = assetPath("fixtures/hotpot/demo.parquet");

/** The parsed options of `hotpot collect`. */
export interface HotpotCollectOptions extends RunCommandOptions {
  dataset?: string;
  questions?: number;
  bridge?: number;
  comparison?: number;
  seed?: number;
  "min-chars"?: number;
  "max-chars"?: number;
  scripted?: boolean;
  "hermes-sessions"?: string;
  agent?: string;
  "agent-timeout"?: number;
  "agent-system-prompt"?: string;
  "agent-env"?: string[];
  tokenizer?: string;
  /** Collect only this part of the selection (by question id hash); recorded in the header. */
  shard?: Shard;
}

/** `hotpot collect`: returns the run directory. */
export async function hotpotCollect(
  options: HotpotCollectOptions,
  invocation: RunInvocation,
): Promise<string> {
  const modeKind = chooseCollectionMode(options);
  // Collection never reuses a frozen run: these options would be ignored.
  refuseGiven("hotpot collect", options, ["frozen-run", "check-only"], "not supported (nothing is reused)");
  refuseWithRetry(options);
  const datasetPath = options.dataset ?? DEMO_DATASET;
  // Recorded in corpus.json: the path as given, or a name for the embedded data that does not depend on where
  // the program is installed (so the corpus, and every key after it, is the same on every machine).
  const datasetLabel = options.dataset ?? "embedded:fixtures/hotpot/demo.parquet";
  const bytes = await readInputFile(datasetPath, "--dataset");
  // Read in batches: selection keeps only its candidates, collection only the selected records.
  const dataset = hotpotDatasetFile(datasetPath, "--dataset");
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
  // (The candidates are remembered: the select node takes them from the dataset without reading it again.)
  const selected = selectionReportOf(await dataset.candidates(selection), selection);
  assertQuotaMet(selected.report, datasetLabel, selection);
  // The selected records, read now (before the tokenizer is built, so the two never add up in memory); the
  // collection takes them from the dataset, which remembers them.
  const { byId } = await dataset.records(new Set(selected.ids));
  const sessions = modeKind === "hermes"
    ? await readHermesSessions(options["hermes-sessions"]!, selected.ids.map((id) => byId.get(id)!))
    : {};
  // An outside agent with --reference or --live reaches that chat model through the loopback endpoint.
  const agentModel = modeKind === "agent" && (options.reference === true || options.live === true);
  const finished = await runSuiteCommand({
    suite: HOTPOT_COLLECT_SUITE,
    options,
    invocation,
    models: modeKind === "live" || agentModel,
    endpoint: agentModel,
    // Every shard declares the whole selection's sources (the dataset and, for Hermes sessions, every
    // selected question's file), so the shards' headers agree and a merge equals the unsharded run.
    sources: { dataset: bytes, ...sessions },
    async prepare({ models, endpoint }) {
      const mode: CollectMode = modeKind === "live"
        ? { kind: "live", chat: models!.chat, model: models!.description.chat_model }
        : modeKind === "agent"
        ? { ...await agentMode(options), ...(endpoint ? { endpoint } : {}) }
        : { kind: modeKind };
      const protocol = {
        suite: "hotpot",
        stage: "collect",
        selection,
        collection: mode.kind,
        ...(mode.kind === "agent" ? { agent: mode.command } : {}),
        // The chat model the agent was handed through the loopback endpoint, when it was.
        ...(endpoint ? { agent_model: models!.description } : {}),
        // The names of the variables the agent was given (never their values).
        ...(mode.kind === "agent" && Object.keys(mode.passedEnv).length > 0
          ? { agent_env: Object.keys(mode.passedEnv).sort() }
          : {}),
      };
      return {
        protocol,
        // Values passed to the agent under secret-looking names: no option may hold one.
        ...(mode.kind === "agent" ? { secrets: passedSecrets("--agent-env", mode.passedEnv) } : {}),
        value: mode,
      };
    },
    async run(context, _setup, mode) {
      const corpus = await collectCorpus(context, {
        datasetPath: datasetLabel,
        datasetSha256: sha256Hex(bytes),
        dataset,
        selection,
        mode,
        ...(options.shard !== undefined ? { shard: options.shard } : {}),
      });
      return { result: corpus, files: {}, lines: collectionSummaryLines(corpus, context.run.path) };
    },
  });
  // A shard whose part of the selection holds no question is a finished part, not a failed collection.
  if (options.shard === undefined || finished.result.questions.length > 0) assertSomeValid(finished.result);
  return finished.path;
}

/** The parsed options of `hotpot run`. */
export interface HotpotRunCommandOptions extends RunCommandOptions {
  corpus?: string;
  /** `--methods`: method or engine names. */
  methods?: string[];
  /** `--method`: `[NAME=]SPEC` values. */
  method?: string[];
  /** One ceiling, or several (a ceiling sweep; the first is the primary one). */
  "input-cap"?: number[];
  reserve?: number;
  compressions?: number;
  answers?: number;
  tokenizer?: string;
  bootstrap?: number;
  price?: { model: string; input: number; output: number }[];
  prices?: string;
  shard?: Shard;
}

/**
 * A corpus file checked question by question; only its bytes and its dataset's hash are kept. The corpus of a
 * collect shard (a part of the selection) is refused.
 */
async function readCorpusSource(
  path: string,
): Promise<{ sources: { corpus?: Uint8Array }; corpusSha256: string; datasetSha256: string }> {
  const { head: corpus, bytes } = await checkCorpusFile(path);
  if (corpus.shard !== undefined) {
    throw new UsageError(
      `--corpus ${path}: the corpus of collect shard ${
        shardText(corpus.shard)
      } holds only that part of the ` +
        `selection; join the shards first ('${CLI} merge OUT RUN...')`,
    );
  }
  return { sources: { corpus: bytes }, corpusSha256: sha256Hex(bytes), datasetSha256: corpus.dataset.sha256 };
}

/** `hotpot run`: returns the run directory. */
export async function hotpotRunCommand(
  options: HotpotRunCommandOptions,
  invocation: RunInvocation,
): Promise<string> {
  if (!options.corpus) {
    throw new UsageError("hotpot run: --corpus FILE is required (write one with 'hotpot collect')");
  }
  // Only the bytes are kept, in `sources`, which the run empties once it has stored them: the run reads the
  // questions back from its store one at a time (see runHotpot).
  const { sources, corpusSha256, datasetSha256 } = await readCorpusSource(options.corpus);
  // The corpus's questions were parsed one by one and dropped: collected before the tokenizer is built.
  heapBudget.collect();
  refuseWithRetry(options);
  // A declared method needs what the hotpot frame gives (units, rankings, summaries): all of them do.
  const selected = await selectMethods(options, HOTPOT_METHODS, () => true);
  const runOptions = {
    ...DEFAULT_HOTPOT_RUN,
    methods: selected.methods,
    // Only a run with engine methods records them, so a run without keeps today's protocol byte for byte.
    ...(selected.engines.length > 0 ? { engines: selected.engines } : {}),
    ...(options["input-cap"] !== undefined ? { inputCap: options["input-cap"][0] } : {}),
    // Only a sweep records its list, so a single ceiling keeps today's protocol (and keys) byte for byte.
    ...(options["input-cap"] !== undefined && options["input-cap"].length > 1
      ? { inputCaps: options["input-cap"] }
      : {}),
    ...(options.reserve !== undefined ? { reserve: options.reserve } : {}),
    ...(options.compressions !== undefined ? { compressions: options.compressions } : {}),
    ...(options.answers !== undefined ? { answers: options.answers } : {}),
  };
  const finished = await runSuiteCommand({
    suite: HOTPOT_SUITE,
    options,
    invocation,
    frozenFor: runOptions,
    afterTokenizer() {
      if (runOptions.reserve >= Math.min(...(runOptions.inputCaps ?? [runOptions.inputCap]))) {
        throw new UsageError("--reserve must be smaller than --input-cap");
      }
    },
    prices: true,
    // Outside engine methods reach the chat model only through the loopback endpoint, a token per call: their
    // calls are their engine node's requests (compression usage).
    endpoint: selected.engines.length > 0,
    sources: sources as Record<string, Uint8Array>,
    async prepare({ frozen, checkOnly, counter, models }) {
      if (frozen && !checkOnly) {
        const ours = { tokenizerHash: counter.hash, corpusHash: corpusSha256, models: models.description };
        await assertHotpotFrozen(frozen, { ...ours, options: runOptions });
      }
      return { protocol: { suite: "hotpot", ...runOptions, models: models.description }, value: undefined };
    },
    async run(context, { counter, models, prices, endpoint }) {
      if (context.resumed && context.run.header.sources.corpus !== corpusSha256) {
        throw new UsageError(`--corpus ${options.corpus} differs from the corpus this run started with`);
      }
      const outcome = await runHotpot(
        context,
        options.shard,
        runOptions,
        models,
        counter,
        {
          bootstrap: options.bootstrap,
          prices,
        },
        { endpoint },
      );
      return {
        result: outcome,
        json: {
          "protocol.json": {
            suite: "hotpot",
            ...runOptions,
            models: models.description,
            tokenizer: { name: counter.name, hash: counter.hash },
            corpus_sha256: corpusSha256,
            dataset_sha256: datasetSha256,
          },
        },
        files: { ...outcome.files, "corpus.json": context.run.header.sources.corpus },
        check: outcome.checkOnly,
      };
    },
  });
  return finished.path;
}
