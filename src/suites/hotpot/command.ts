/**
 * `hotpot run` after parsing: inputs checked before anything is written, then the shared run set-up.
 * @module
 */
import { heapBudget } from "../../core/heap_budget.ts";
import { UsageError } from "../../errors.ts";
import { sha256Hex } from "../../store/hash.ts";
import { refuseWithRetry, runSuiteCommand } from "../run_command.ts";
import type { RunCommandOptions, RunInvocation } from "../run_lifecycle.ts";
import { checkCorpusFile } from "./corpus.ts";
import { HOTPOT_SUITE, hotpotSummaryLines } from "./definition.ts";
import { HOTPOT_METHODS } from "./run/methods.ts";
import { selectMethods } from "../method_selection.ts";
import { DEFAULT_HOTPOT_RUN, runHotpot } from "./run/run_suite.ts";
import { type Shard, shardText } from "../../pipeline/shard.ts";
import { assertHotpotFrozen } from "./run/frozen_protocol.ts";
import { rememberCheckedCorpus } from "./run/stages/question.ts";
import { CLI } from "../../core/program_name.ts";

/** The parsed options of `hotpot run`. */
export interface HotpotRunCommandOptions extends RunCommandOptions {
  corpus?: string;
  methods?: string[];
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

/** A corpus file checked question by question, keeping bytes and dataset hash; a shard's is refused. */
async function readCorpusSource(
  path: string,
): Promise<{ sources: { corpus?: Uint8Array }; corpusSha256: string; datasetSha256: string }> {
  const { head: corpus, bytes, spans, validity } = await checkCorpusFile(path);
  if (validity.valid === 0) {
    const first = validity.firstInvalid;
    const example = first ? `; the first, ${first.id}: ${first.reason.slice(0, 300)}` : "";
    throw new UsageError(
      `--corpus ${path}: no question has a valid trajectory (0 of ${validity.questions}), so every condition ` +
        `would be invalid${example}. Collect ` +
        `again (the collection's REPORT.md says why each failed; a collection whose provider calls failed is ` +
        `recovered with '${CLI} hotpot collect --retry-failed RUN --output NEW' and its options)`,
    );
  }
  if (corpus.shard !== undefined) {
    const shard = shardText(corpus.shard);
    throw new UsageError(
      `--corpus ${path}: the corpus of collect shard ${shard} holds only that part of the ` +
        `selection; join the shards first ('${CLI} merge OUT RUN...')`,
    );
  }
  const corpusSha256 = sha256Hex(bytes);
  // The run's question nodes reuse what this check found in the same bytes.
  if (spans !== undefined) rememberCheckedCorpus(corpusSha256, corpus, spans);
  return { sources: { corpus: bytes }, corpusSha256, datasetSha256: corpus.dataset.sha256 };
}

/** `hotpot run`: returns the run directory. */
export async function hotpotRunCommand(
  options: HotpotRunCommandOptions,
  invocation: RunInvocation,
): Promise<string> {
  if (!options.corpus) {
    throw new UsageError("hotpot run: --corpus FILE is required (write one with 'hotpot collect')");
  }
  // Only the bytes are kept (the run reads the questions back from its store one at a time).
  const { sources, corpusSha256, datasetSha256 } = await readCorpusSource(options.corpus);
  heapBudget.collect(); // the parsed questions are garbage before the tokenizer is built
  refuseWithRetry(options);
  const selected = await selectMethods(options, HOTPOT_METHODS, () => true);
  const runOptions = {
    ...DEFAULT_HOTPOT_RUN,
    methods: selected.methods,
    // Engines and a ceiling list are recorded only when given: other runs keep their protocol byte for byte.
    ...(selected.engines.length > 0 ? { engines: selected.engines } : {}),
    ...(options["input-cap"] !== undefined ? { inputCap: options["input-cap"][0] } : {}),
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
    // Outside engines reach the chat model only through the loopback endpoint (a token per call).
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
      const stats = { bootstrap: options.bootstrap, prices };
      const outcome = await runHotpot(context, options.shard, runOptions, models, counter, stats, {
        endpoint,
      });
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
        lines: outcome.checkOnly ? [] : hotpotSummaryLines(
          await context.run.store.getText(outcome.files["aggregate.json"]),
          { questions: outcome.validQuestions, inputCap: runOptions.inputCap },
        ),
      };
    },
  });
  return finished.path;
}
