/**
 * `hotpot run` after parsing: inputs checked before anything is written (with a frozen run, the options that
 * enter a compression key against its protocol: src/pipeline/frozen_check.ts), then the shared run set-up.
 * @module
 */
import { heapBudget } from "../../core/heap_budget.ts";
import { UsageError } from "../../errors.ts";
import { sha256Hex } from "../../store/hash.ts";
import { refuseWithRetry, runSuiteCommand } from "../run_command.ts";
import type { RunCommandOptions, RunInvocation } from "../run_lifecycle.ts";
import { checkCorpusFile, CHECKED_CORPUS_KEPT_BYTES } from "./corpus.ts";
import { HOTPOT_SUITE, hotpotSummaryLines } from "./definition.ts";
import { HOTPOT_METHODS } from "./run/methods.ts";
import { selectMethods } from "../method_selection.ts";
import { DEFAULT_HOTPOT_RUN, hotpotMethods, type HotpotRunOptions, runHotpot } from "./run/run_suite.ts";
import { type Shard, shardText } from "../../pipeline/shard.ts";
import { rememberCheckedCorpus } from "./run/stages/question.ts";
import { CLI } from "../../core/program_name.ts";
import { assertFrozenProtocol, assertNoFailedCompression } from "../../pipeline/frozen_check.ts";
import type { FrozenRun } from "../../pipeline/frozen_run.ts";
import { someNeeds } from "../../methods/registry.ts";
import { hotpotRankStage, hotpotSummaryStage } from "./run/stages/compress.ts";

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
  const { head: corpus, bytes, spans, parsed, validity } = await checkCorpusFile(path);
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
  if (spans !== undefined) {
    const kept = bytes.length <= CHECKED_CORPUS_KEPT_BYTES ? bytes : undefined; // not read back from the store
    rememberCheckedCorpus(corpusSha256, corpus, spans, parsed, kept);
  }
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
  // The bytes are kept, and at most a bounded part of the questions as checked (the run reads the questions back
  // from its store one at a time).
  const { sources, corpusSha256, datasetSha256 } = await readCorpusSource(options.corpus);
  heapBudget.collect(); // the other parsed questions are garbage before the tokenizer is built
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

/** What this run would put into its compression keys. */
export interface HotpotFrozenInputs {
  options: HotpotRunOptions;
  models: { chat_model: string; decision_model: string };
  tokenizerHash: string;
  corpusHash: string;
}

/** The `--input-cap` row: equal when every ceiling of ours is a ceiling of the frozen run. */
function frozenCeilings(o: HotpotRunOptions, p: Partial<HotpotRunOptions>) {
  const ours = o.inputCaps ?? [o.inputCap];
  const frozen = p.inputCaps ?? (p.inputCap === undefined ? [] : [p.inputCap]);
  const covered = ours.every((cap) => frozen.includes(cap));
  return { option: "--input-cap", ours: ours.join(","), frozen: covered ? ours.join(",") : frozen.join(",") };
}

/** Refuses (exit 2, before anything is written) a hotpot run that could not reuse the frozen run exactly. */
export function assertHotpotFrozen(frozen: FrozenRun, ours: HotpotFrozenInputs): void {
  const p = (frozen.manifest.protocol ?? {}) as Partial<HotpotRunOptions> & {
    models?: { chat_model?: string; decision_model?: string };
  };
  const o = ours.options;
  const frozenMethods = p.methods ?? [];
  const methods = hotpotMethods(o);
  // A method that compresses, which the frozen run did not measure (or measured with another engine spec).
  const frozenSpec = (name: string) => p.engines?.find((e) => e.name === name)?.spec;
  const missing = methods.filter((m) =>
    m.kind === "engine"
      ? frozenMethods.includes(m.name) && frozenSpec(m.name) !== m.spec
      : m.needs.length > 0 && !frozenMethods.includes(m.name)
  );
  const usesRanking = someNeeds(methods, "ranking");
  const usesSummary = someNeeds(methods, "summary");
  assertFrozenProtocol(frozen, [
    { option: "--corpus (sha256)", ours: ours.corpusHash, frozen: frozen.manifest.sources["corpus"] },
    // Only methods whose compression the frozen run did not make matter (full needs none).
    ...(missing.length > 0
      ? [{ option: "--methods", ours: o.methods.join(","), frozen: frozenMethods.join(",") }]
      : []),
    // A run may reuse a frozen run at any of the frozen run's ceilings (a sweep froze every one of them).
    frozenCeilings(o, p),
    { option: "--reserve", ours: o.reserve, frozen: p.reserve },
    { option: "--compressions", ours: o.compressions, frozen: p.compressions },
    { option: "--tokenizer (hash)", ours: ours.tokenizerHash, frozen: frozen.manifest.tokenizer?.hash },
    ...(usesSummary
      ? [
        { option: "chat model (--model)", ours: ours.models.chat_model, frozen: p.models?.chat_model },
        { option: "summary retries", ours: o.summaryRetries, frozen: p.summaryRetries },
      ]
      : []),
    ...(methods.some((m) => m.kind === "units" && Object.hasOwn(m.params, "fusion_share"))
      ? [{ option: "fusion share", ours: o.fusionShare, frozen: p.fusionShare }]
      : []),
    ...(usesRanking
      ? [{ option: "decision model", ours: ours.models.decision_model, frozen: p.models?.decision_model }]
      : []),
  ]);
  assertNoFailedCompression(frozen, (node) => {
    if (node.stage === hotpotRankStage.name) return usesRanking;
    if (node.stage !== hotpotSummaryStage.name) return false;
    return o.methods.includes((node.params as { method?: string }).method ?? "");
  });
}
