/**
 * `hotpot run` over the run store. Per question: a `hotpot-question` node splits the corpus into the public
 * material and the gold labels; per generation a `hotpot-rank` node (decision model) and `hotpot-summary`
 * nodes (chat model) freeze the compression artifacts; pure `hotpot-context` nodes render each method's answer
 * input; `hotpot-answer` nodes (always afresh) call the chat model; `hotpot-score` nodes score against gold.
 *
 * @module
 */
import type { ModelSetup } from "../../model_setup.ts";
import type { RunContext } from "../../run_lifecycle.ts";
import { answerStage, CheckOnlyComparison, type CheckOnlyReport } from "../../answer_stage.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
import { addUsage, emptyUsage, type Usage } from "../../../core/usage.ts";
import {
  type AnsweringModels,
  type ModelRole,
  ModelTally,
  requestedModels,
} from "../../../core/answering_models.ts";
import { rowInput, sortedRecord } from "../../published.ts";
import type { StoredRankingValue, StoredSummaryValue } from "../../stored.ts";
import type { HotpotMethod } from "./methods.ts";
import {
  contextNeeds,
  declaredMethod,
  type Method,
  someNeeds,
  suiteSetParams,
} from "../../../methods/registry.ts";
import { hotpotEngineStage } from "./stages/engine.ts";
import { engineReportParams } from "../../method_selection.ts";
import type { LoopbackProxy } from "../../../models/loopback_proxy.ts";
import {
  corpusOf,
  forgetCorpus,
  hotpotQuestionStage,
  type StoredQuestion,
  storedQuestion,
} from "./stages/question.ts";
import { CorpusGoldSchema } from "../corpus.ts";
import { questionInShard, type Shard } from "../../../pipeline/shard.ts";
import type { BlobStore } from "../../../store/blob_store.ts";
import type { NodeOutcome } from "../../../pipeline/executor.ts";
import { hotpotContextStage } from "./stages/context.ts";
import { hotpotRankStage, hotpotSummaryStage } from "./stages/compress.ts";
import { hotpotScoreStage } from "./stages/score.ts";
import { hotpotAggregateStage, rowsInput } from "./stages/aggregate.ts";
import { hotpotRowsStage } from "./stages/rows.ts";
import { hotpotReportStage } from "../report/stages/report.ts";
import { hotpotCorpusHeadStage } from "./stages/corpus_head.ts";
import { ceilingInputs, hotpotCeilingsStage } from "./stages/ceilings.ts";
import pLimit from "p-limit";
import { heapBudget } from "../../../core/heap_budget.ts";
import { DEFAULT_RESAMPLES } from "../../../analysis/bootstrap.ts";
import { runCost } from "../../../analysis/cost.ts";
import { contextInputs, type ReportAnalysisOptions } from "../../../analysis/report_inputs.ts";
import { hotpotAnswerStage } from "./stages/answer.ts";

export type { HotpotResultRow } from "./rows.ts";
export { supportSurvival } from "./stages/score.ts";

/** Questions in flight at once (each queues a few dozen calls). */
const QUESTION_WINDOW = 8;

/** An engine method of a run, as protocol.json records it. */
export interface HotpotEngineOption {
  name: string;
  spec: string;
  /** Adapter file → SHA-256 (outside engines; enters the engine node's key). */
  adapters: Record<string, string>;
  /** Calls no model: one generation is compacted and answered. */
  deterministic: boolean;
}

/** The protocol knobs of a run. */
export interface HotpotRunOptions {
  /** Every method's name, in report order: declared methods and engine methods. */
  methods: HotpotMethod[];
  /** The engine methods among `methods` (absent when there are none, so older protocols stay as they were). */
  engines?: HotpotEngineOption[];
  /** The ceiling; in a sweep, the primary (first given) one. */
  inputCap: number;
  /** A ceiling sweep's ceilings, as given (absent: one ceiling, `inputCap`). */
  inputCaps?: number[];
  reserve: number;
  compressions: number;
  answers: number;
  fusionShare: number;
  summaryRetries: number;
  answerMaxTokens: number;
}

/** Defaults from the protocol. */
export const DEFAULT_HOTPOT_RUN: Omit<HotpotRunOptions, "methods"> = {
  inputCap: 3600,
  reserve: 64,
  compressions: 2,
  answers: 2,
  fusionShare: 0.4,
  summaryRetries: 3,
  answerMaxTokens: 256,
};

/** The run's methods: each name resolved to its declaration or its engine. */
export function hotpotMethods(options: Pick<HotpotRunOptions, "methods" | "engines">): Method[] {
  return options.methods.map((name) => {
    const engine = options.engines?.find((e) => e.name === name);
    if (engine) {
      return {
        kind: "engine" as const,
        name,
        spec: engine.spec,
        needs: [],
        ceilingBinds: true as const,
        deterministic: engine.deterministic,
      };
    }
    const method = declaredMethod(name);
    if (!method) throw new Error(`hotpot: no method ${name} is declared`);
    return method;
  });
}

/** The method parameters a hotpot run's options set (by name: see {@link suiteSetParams}). */
const hotpotSetParams = (options: Pick<HotpotRunOptions, "fusionShare">) => ({
  fusion_share: options.fusionShare,
});

/** A declared method's parameters as this run sets them (recorded in protocol.json as its options). */
function suiteParams(method: Method, options: HotpotRunOptions): Record<string, number> {
  return suiteSetParams(method, hotpotSetParams(options));
}

/** Transport of the engine methods: the loopback chat endpoint outside engines get (never in a key). */
export interface EngineTransport {
  endpoint?: LoopbackProxy;
}

/** What the suite returns besides the files it exports. */
export interface HotpotRunOutcome {
  compressionUsage: Record<string, Usage>;
  checkOnly: CheckOnlyReport | null;
  /** Published file name → the node output blob that is its exact bytes (empty in check-only mode). */
  files: Record<string, string>;
  /** The run's (its shard's) questions whose collection is valid. */
  validQuestions: number;
}

/** Runs the hotpot conditions of a corpus. */
export async function runHotpot(
  context: RunContext,
  shard: Shard | undefined,
  options: HotpotRunOptions,
  models: ModelSetup,
  counter: TokenCounter,
  analysis: ReportAnalysisOptions = {},
  transport: EngineTransport = {},
): Promise<HotpotRunOutcome> {
  const { executor } = context;
  const env = { counter };
  const check = new CheckOnlyComparison();
  const caps = options.inputCaps ?? [options.inputCap];
  const sweep = caps.length > 1;
  const { questions, head, valid: validQuestions } = await questionNodes(context, shard, counter);
  const runs = await Promise.all(
    caps.map((cap, i) =>
      runCeiling(context, questions, { ...options, inputCap: cap }, models, counter, check, {
        tag: sweep ? ` cap=${cap}` : "",
        first: i === 0,
        endpoint: transport.endpoint,
      })
    ),
  );
  const { compressionUsage } = runs[0];
  const checkOnly = check.report(executor);
  if (checkOnly) return { compressionUsage, checkOnly, files: {}, validQuestions };
  // 4. Every published number is a node output: the aggregate takes every answer row's blobs as inputs.
  // The answering phase's garbage is collected first, so that it does not sit under the aggregate's peak.
  heapBudget.collect();
  const { aggregateNode, ceilingsNode, ceilingHashes } = await aggregateNodes(
    context,
    head,
    runs,
    caps,
    options,
    env,
  );
  // Every context the primary ceiling's rows name, once: the report's explorer reads them.
  const contexts = runs[0].contexts;
  heapBudget.collect(); // the aggregate's (results.json's chunks), before the report's peak
  const reportNode = await executor.runStage(hotpotReportStage, {
    label: "report",
    params: {
      models: models.description,
      tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
      input_cap: options.inputCap,
      reserve: options.reserve,
      compressions: options.compressions,
      answers: options.answers,
      bootstrap: analysis.bootstrap ?? DEFAULT_RESAMPLES,
      cost: analysis.prices ? await runCost(context.run.readNodes(), analysis.prices, options.methods) : null,
      ...(sweep ? { ceilings: caps } : {}),
      ...engineReportParams(options.engines),
    },
    // Read from the store by the report itself (cards and contexts one at a time): never the whole corpus.
    inputs: {
      aggregate: aggregateNode.outputs["aggregate.json"],
      head,
      ...Object.fromEntries(questions.map((q) => [`card:${q.id}`, q.card])),
      results: aggregateNode.outputs["results.json"],
      ...contextInputs(contexts),
      ...ceilingHashes,
    },
  }, env);
  const published = ceilingsNode ?? aggregateNode;
  return {
    compressionUsage,
    checkOnly: null,
    validQuestions,
    files: {
      "results.json": published.outputs["results.json"],
      "aggregate.json": published.outputs["aggregate.json"],
      "REPORT.md": reportNode.node.outputs["REPORT.md"],
      "report.html": reportNode.node.outputs["report.html"],
      "stats.json": reportNode.node.outputs["stats.json"],
    },
  };
}

/**
 * Runs the aggregate node of every ceiling and, in a sweep, the ceilings node; returns their nodes (the
 * published files' blobs), not the outputs' texts, which are as large as the run and read again by nobody
 * here. `ceilingHashes`: the report's `ceiling-*` inputs (empty outside a sweep).
 */
async function aggregateNodes(
  context: RunContext,
  head: string,
  runs: readonly CeilingRun[],
  caps: readonly number[],
  options: HotpotRunOptions,
  env: { counter: TokenCounter },
): Promise<
  { aggregateNode: NodeOutcome; ceilingsNode: NodeOutcome | null; ceilingHashes: Record<string, string> }
> {
  const { executor, progress } = context;
  const sweep = caps.length > 1;
  progress.plan(hotpotAggregateStage.name, caps.length);
  if (sweep) progress.plan(hotpotCeilingsStage.name, 1);
  progress.plan(hotpotReportStage.name, 1);
  const aggregates = await Promise.all(runs.map((r, i) =>
    executor.runStage(hotpotAggregateStage, {
      label: sweep ? `aggregate cap=${caps[i]}` : "aggregate",
      params: {
        methods: options.methods,
        compression_usage: r.compressionUsage,
        answering_models: r.answeringModels,
      },
      // The rows are read back from the store when the aggregate runs: nothing holds every row meanwhile.
      inputs: { head, ...sortedRecord(r.aggregateInputs) },
    }, env)
  ));
  if (!sweep) return { aggregateNode: aggregates[0].node, ceilingsNode: null, ceilingHashes: {} };
  // A sweep publishes every ceiling's rows and aggregates (the primary ceiling's first), from one node.
  // Read from the store by the executor: the aggregates do not hand their results.json back.
  const ceilings = ceilingInputs(caps, aggregates);
  const ceilingsNode = await executor.runStage(hotpotCeilingsStage, {
    label: "ceilings",
    params: { caps },
    inputs: ceilings.inputs,
  }, env);
  return {
    aggregateNode: aggregates[0].node,
    ceilingsNode: ceilingsNode.node,
    ceilingHashes: ceilings.inputs,
  };
}

/** The blobs of one question node: its public material, its gold labels, its id and type, and its card. */
interface QuestionBlobs {
  id: string;
  question: string;
  gold: string;
  meta: string;
  card: string;
}

/**
 * Runs the corpus head node and every question node of the run (of its shard) first: they are pure and
 * cheap, and afterwards the parsed corpus is released, so a run never holds the corpus while it answers.
 * Returns the question nodes' blobs and the corpus head's.
 */
async function questionNodes(
  context: RunContext,
  shard: Shard | undefined,
  counter: TokenCounter,
): Promise<{ questions: QuestionBlobs[]; head: string; valid: number }> {
  const { executor, run, progress } = context;
  const corpusHash = run.header.sources["corpus"];
  // The corpus's bytes, read question by question (see corpusOf): never its questions all at once.
  const bytes = await run.store.get(corpusHash);
  const whole = corpusOf(corpusHash, bytes);
  progress.plan(hotpotCorpusHeadStage.name, 1);
  const headNode = await executor.runStage(hotpotCorpusHeadStage, {
    label: "corpus head",
    params: {},
    inputs: { corpus: corpusHash },
    values: { corpus: bytes },
  }, { counter });
  const ids = whole.ids.filter((id) => questionInShard(id, shard));
  progress.plan(hotpotQuestionStage.name, ids.length);
  const blobs: QuestionBlobs[] = [];
  let valid = 0;
  for (const id of ids) {
    const node = await executor.runStage(hotpotQuestionStage, {
      label: `question q=${id}`,
      params: { id },
      inputs: { corpus: corpusHash },
      values: { corpus: bytes },
    }, { counter });
    const { outputs } = node.node;
    if (node.node.status !== "invalid") valid++;
    blobs.push({
      id,
      question: outputs.question,
      gold: outputs.gold,
      meta: outputs.meta,
      card: outputs.card,
    });
  }
  forgetCorpus(corpusHash);
  return { questions: blobs, head: headNode.node.outputs.head, valid };
}

/**
 * A stored question read back (validated, kept as read so it equals the stored bytes). Validated through
 * `storedQuestion`, whose parse of this value the question's stage bodies, handed the same value, then reuse.
 */
async function readQuestion(store: BlobStore, hash: string): Promise<StoredQuestion> {
  const value = await store.getJson(hash);
  storedQuestion(value);
  return value as StoredQuestion;
}

/** One ceiling's rows nodes (as aggregate inputs), the contexts its rows name, and its compression usage. */
interface CeilingRun {
  /** `rows:<question id>` → the question's rows node output. */
  aggregateInputs: Record<string, string>;
  /** Every context blob the rows name (what the report's explorer reads). */
  contexts: Set<string>;
  compressionUsage: Record<string, Usage>;
  /** Per method, the models that answered its calls, per role, beside the requested names. */
  answeringModels: Record<string, AnsweringModels>;
}

/**
 * Runs every method at one ceiling (`options.inputCap`). In a sweep the ceilings share the executor, so nodes
 * that do not depend on the ceiling (questions, rankings; Full's context bytes and so its answers and scores)
 * run once and are memoised; summaries, contexts, answers and scores of compressed methods are per ceiling
 * (their keys hold the ceiling; their labels end in ` cap=N`).
 */
async function runCeiling(
  context: RunContext,
  questions: readonly QuestionBlobs[],
  options: HotpotRunOptions,
  models: ModelSetup,
  counter: TokenCounter,
  check: CheckOnlyComparison,
  ceiling: { tag: string; first: boolean; endpoint?: LoopbackProxy },
): Promise<CeilingRun> {
  const { executor, run, progress } = context;
  const tag = ceiling.tag;
  const methods = hotpotMethods(options);
  const usesRanking = someNeeds(methods, "ranking");
  const q = questions.length;
  const G = options.compressions;
  /** The generations a method is compacted and answered in (a deterministic engine: one). */
  const generationsOf = (m: Method) => m.kind === "engine" && m.deterministic ? 1 : G;
  const conditions = methods.reduce((n, m) => n + generationsOf(m), 0);
  // Rankings do not depend on the ceiling: a sweep plans (and runs) them once.
  if (usesRanking && ceiling.first) progress.plan(hotpotRankStage.name, q * G);
  const summarized = methods.filter((m) => m.needs.includes("summary")).length;
  if (summarized > 0) progress.plan(hotpotSummaryStage.name, q * G * summarized);
  const engines = methods.filter((m) => m.kind === "engine");
  if (engines.length > 0) {
    progress.plan(
      hotpotEngineStage.name,
      q * engines.reduce((n, m) => n + generationsOf(m), 0),
    );
  }
  progress.plan(hotpotContextStage.name, q * conditions);
  progress.plan(hotpotAnswerStage.name, q * conditions * options.answers);
  progress.plan(hotpotScoreStage.name, q * conditions * options.answers);
  if (!executor.checkOnly) progress.plan(hotpotRowsStage.name, q);

  const compressionUsage: HotpotRunOutcome["compressionUsage"] = {};
  const countUsage = (method: string, usage: Usage) =>
    addUsage(compressionUsage[method] ??= emptyUsage(), usage);
  // The answering models of every provider node this ceiling uses (reused ones too: their answers are used).
  const tally = new ModelTally();
  const countModels = async (
    method: string,
    role: ModelRole,
    node: NodeOutcome,
    endpoint?: "chat" | "systemone",
  ) => tally.add(method, role, await executor.answeredBy(node, endpoint));
  const common = { input_cap: options.inputCap, reserve: options.reserve, tokenizer: counter.hash };
  const env = { counter };
  const modelEnv = { counter, chat: models.chat, decision: models.decision, endpoint: ceiling.endpoint };
  /** The aggregate's inputs: per question its rows node's output. */
  const aggregateInputs: Record<string, string> = {};
  const contexts = new Set<string>();
  // A bounded window of questions in flight: memory stays flat in the number of questions, and the window
  // still queues more calls than the endpoint runs at once.
  const window = pLimit(QUESTION_WINDOW);

  await Promise.all(questions.map((cq) =>
    window(async () => {
      // Read back from the store while the question is in flight: nothing holds every question.
      const question = await readQuestion(run.store, cq.question);
      const questionHash = cq.question;
      const goldHash = cq.gold;
      const gold = await run.store.getJson(goldHash);
      CorpusGoldSchema.parse(gold);
      /** The rows node's inputs: the question's meta, and per answer row its status, answer, score, context. */
      const rowInputs: Record<string, string> = { meta: cq.meta };

      // Generations, methods and answers run concurrently; only data dependencies order them (rank →
      // summary → context → answers), so the endpoint limiter always has queued work. Rows are sorted by the
      // aggregate stage.
      await Promise.all(Array.from({ length: G }, async (_, gen) => {
        let rankingHash: string | undefined;
        let ranking: StoredRankingValue | undefined;
        if (usesRanking) {
          const rankNode = await executor.runStage(hotpotRankStage, {
            label: `rank q=${cq.id} gen=${gen}`,
            params: { generation: gen, decision_model: models.description.decision_model },
            inputs: { question: questionHash },
            values: { question },
          }, modelEnv);
          rankingHash = rankNode.node.outputs.ranking;
          ranking = rankNode.outputs.ranking ?? undefined;
          for (const m of methods) {
            if (m.needs.includes("ranking") && rankNode.node.reused_from === undefined) {
              countUsage(m.name, rankNode.node.usage);
            }
            if (m.needs.includes("ranking")) await countModels(m.name, "decision", rankNode.node);
          }
        }

        await Promise.all(
          methods.filter((m) => gen < generationsOf(m)).map(async (declared) => {
            const method = declared.name;
            const bound = declared.ceilingBinds;
            // 1. Compression artifact (summary, or an engine's window) where the method needs one.
            let summaryHash: string | undefined;
            let summaryValue: StoredSummaryValue | undefined;
            let windowHash: string | undefined;
            let windowValue: unknown;
            if (declared.needs.includes("summary")) {
              const inputs: Record<string, string> = { question: questionHash };
              if (declared.needs.includes("ranking") && rankingHash) inputs.ranking = rankingHash;
              const summaryNode = await executor.runStage(hotpotSummaryStage, {
                label: `summary q=${cq.id} method=${method} gen=${gen}${tag}`,
                params: {
                  method,
                  generation: gen,
                  ...common,
                  chat_model: models.description.chat_model,
                  max_retries: options.summaryRetries,
                  ...suiteParams(declared, options),
                },
                inputs,
                values: { question, ranking },
              }, modelEnv);
              summaryHash = summaryNode.node.outputs.summary;
              summaryValue = summaryNode.outputs.summary ?? undefined;
              // A node that came from a frozen run (now, or before a resume) made its calls there.
              if (summaryNode.node.reused_from === undefined) countUsage(method, summaryNode.node.usage);
              await countModels(method, "summarizer", summaryNode.node);
            }
            if (declared.kind === "engine") {
              const engine = options.engines!.find((e) => e.name === method)!;
              const engineNode = await executor.runStage(hotpotEngineStage, {
                label: `engine q=${cq.id} method=${method} gen=${gen}${tag}`,
                params: {
                  method,
                  engine: engine.spec,
                  adapters: engine.adapters,
                  generation: gen,
                  ...common,
                  chat_model: models.description.chat_model,
                  decision_model: models.description.decision_model,
                },
                inputs: { question: questionHash },
                values: { question },
              }, modelEnv);
              windowHash = engineNode.node.outputs.window;
              windowValue = engineNode.outputs.window;
              if (engineNode.node.reused_from === undefined) countUsage(method, engineNode.node.usage);
              // An engine's own model calls: its summarizer (chat endpoint) and its rankings (System One).
              await countModels(method, "summarizer", engineNode.node, "chat");
              await countModels(method, "decision", engineNode.node, "systemone");
            }

            // 2. The answer input (pure, rebuilt by --check-only).
            const contextInputs: Record<string, string> = { question: questionHash };
            const contextValues: Record<string, unknown> = { question };
            if (contextNeeds(declared).includes("ranking") && rankingHash) {
              contextInputs.ranking = rankingHash;
              contextValues.ranking = ranking;
            }
            if (summaryHash) {
              contextInputs.summary = summaryHash;
              contextValues.summary = summaryValue;
            }
            if (windowHash) {
              contextInputs.window = windowHash;
              contextValues.window = windowValue;
            }
            const contextNode = await executor.runStage(hotpotContextStage, {
              label: `context q=${cq.id} method=${method}${bound ? ` gen=${gen}` : ""}${tag}`,
              params: { method, ...common },
              inputs: contextInputs,
              values: contextValues,
            }, env);
            const contextHash = contextNode.node.outputs.messages;

            // 3. Answers and scores.
            await Promise.all(Array.from({ length: options.answers }, async (_, a) => {
              const row = `q=${cq.id} method=${method} gen=${gen} ans=${a}`;
              const label = `answer ${row}${bound ? tag : ""}`;
              const { node: answerNode, answer, valid: answerValid } = await answerStage(executor, {
                stage: hotpotAnswerStage.name,
                label,
                params: {
                  question_id: cq.id,
                  method,
                  generation: gen,
                  answer_index: a,
                  chat_model: models.description.chat_model,
                },
                context: contextNode,
                chat: models.chat,
                maxTokens: options.answerMaxTokens,
                inputCap: bound ? options.inputCap : null,
              });
              check.record(executor, label, contextHash);
              await countModels(method, "chat", answerNode.node);
              const scoreNode = await executor.runStage(hotpotScoreStage, {
                label: `score ${row}${bound ? tag : ""}`,
                params: { valid: answerValid },
                inputs: {
                  answer: answerNode.node.outputs.answer,
                  gold: goldHash,
                  context: contextHash,
                  question: questionHash,
                },
                values: { answer, gold, context: contextNode.outputs.messages, question },
              }, env);
              const parts: [string, string][] = [
                ["status", answerNode.node.outputs.status],
                ["answer", answerNode.node.outputs.answer],
                ["score", scoreNode.node.outputs.score],
                ["info", contextNode.node.outputs.info],
                ["context", contextHash],
              ];
              for (const [part, hash] of parts) rowInputs[rowInput(part, row)] = hash;
              contexts.add(contextHash);
            }));
          }),
        );
      }));
      // Check-only compares answer inputs and publishes nothing: no rows.
      if (executor.checkOnly) return;
      const rowsNode = await executor.runStage(hotpotRowsStage, {
        label: `rows q=${cq.id}${tag}`,
        params: { methods: options.methods },
        inputs: sortedRecord(rowInputs),
      }, env);
      aggregateInputs[rowsInput(cq.id)] = rowsNode.node.outputs.rows;
    })
  ));
  const requested = requestedModels(models.description);
  const answeringModels = Object.fromEntries(methods.map((m) => {
    const roles: ModelRole[] = ["chat"];
    if (m.needs.includes("ranking")) roles.push("decision");
    if (m.needs.includes("summary")) roles.push("summarizer");
    return [m.name, tally.of(m.name, requested, roles)];
  }));
  return { aggregateInputs, contexts, compressionUsage, answeringModels };
}
