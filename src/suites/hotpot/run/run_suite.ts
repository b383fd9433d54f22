/**
 * `hotpot run`: hotpot's answer task over the shared pipeline (answer_pipeline.ts). Units are the corpus's
 * questions (`hotpot-question` nodes); per generation a `hotpot-rank`, per method a `hotpot-summary` or
 * `hotpot-engine` node, then the context, answers and scores; a `hotpot-rows` node per question and ceiling.
 *
 * @module
 */
import type { ModelSetup } from "../../model_setup.ts";
import type { CheckOnlyReport, RunContext } from "../../run_lifecycle.ts";
import { CheckOnlyComparison } from "../../answer_pipeline.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
import { addUsage, emptyUsage, type Usage } from "../../../core/usage.ts";
import { sortedRecord } from "../../published.ts";
import { type CeilingRun, publishAnswerRuns, runAnswerTask } from "../../answer_pipeline.ts";
import type { StoredRankingValue } from "../../answer_pipeline.ts";
import type { HotpotMethod } from "./methods.ts";
import {
  contextNeeds,
  declaredMethod,
  type Method,
  someNeeds,
  suiteSetParams,
} from "../../../methods/registry.ts";
import { type EngineOption, engineReportParams } from "../../method_selection.ts";
import type { LoopbackProxy } from "../../../models/loopback_proxy.ts";
import {
  checkedCorpusBytes,
  corpusOf,
  forgetCorpus,
  hotpotCorpusHeadStage,
  hotpotQuestionStage,
  type StoredQuestion,
  storedQuestion,
} from "./stages/question.ts";
import { CorpusGoldSchema } from "../corpus.ts";
import { questionInShard, type Shard } from "../../../pipeline/shard.ts";
import type { NodeOutcome, NodeResult } from "../../../pipeline/executor.ts";
import { hotpotAnswerStage, hotpotContextStage } from "./stages/context.ts";
import { hotpotEngineStage, hotpotRankStage, hotpotSummaryStage } from "./stages/compress.ts";
import { hotpotAggregateStage, hotpotCeilingsStage, rowsInput } from "./stages/aggregate.ts";
import { hotpotRowsStage, hotpotScoreStage } from "./stages/rows.ts";
import { hotpotReportStage } from "../report/stages/report.ts";
import { DEFAULT_RESAMPLES } from "../../../analysis/bootstrap.ts";
import { runCost } from "../../../analysis/cost.ts";
import { contextInputs, type ReportAnalysisOptions } from "../../../analysis/report_inputs.ts";

export type { HotpotResultRow } from "./stages/rows.ts";

/** Questions in flight at once (each queues a few dozen calls). */
const QUESTION_WINDOW = 8;

/**
 * The protocol knobs of a run: `methods` in report order (declared and engine methods), `engines` the engines
 * among them (absent when none, as older protocols), `inputCaps` a ceiling sweep's (`inputCap` its first).
 */
export interface HotpotRunOptions {
  methods: HotpotMethod[];
  engines?: EngineOption[];
  inputCap: number;
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

/** What the suite returns: `files` are the published files' blobs (none in check-only mode). */
export interface HotpotRunOutcome {
  compressionUsage: Record<string, Usage>;
  checkOnly: CheckOnlyReport | null;
  files: Record<string, string>;
  validQuestions: number; // of the run's (its shard's) questions
}

/** Runs the hotpot conditions of a corpus. */
export async function runHotpot(
  context: RunContext,
  shard: Shard | undefined,
  options: HotpotRunOptions,
  models: ModelSetup,
  counter: TokenCounter,
  analysis: ReportAnalysisOptions = {},
  transport: { endpoint?: LoopbackProxy } = {},
): Promise<HotpotRunOutcome> {
  const { executor, run, progress } = context;
  const env = { counter };
  const check = new CheckOnlyComparison();
  const caps = options.inputCaps ?? [options.inputCap];
  const { questions, head, valid: validQuestions } = await questionNodes(context, shard, counter);
  const methods = hotpotMethods(options);
  const byName = new Map(methods.map((m) => [m.name, m]));
  const usesRanking = someNeeds(methods, "ranking");
  const G = options.compressions;
  /** The generations a method is compacted and answered in (a deterministic engine: one). */
  const generationsOf = (m: Method) => m.kind === "engine" && m.deterministic ? 1 : G;
  const perCeiling = questions.length * caps.length;
  if (usesRanking) progress.plan(hotpotRankStage.name, questions.length * G);
  const summarized = methods.filter((m) => m.needs.includes("summary")).length;
  if (summarized > 0) progress.plan(hotpotSummaryStage.name, perCeiling * G * summarized);
  const engines = methods.filter((m) => m.kind === "engine");
  if (engines.length > 0) {
    progress.plan(hotpotEngineStage.name, perCeiling * engines.reduce((n, m) => n + generationsOf(m), 0));
  }
  const modelEnv = { counter, chat: models.chat, decision: models.decision, endpoint: transport.endpoint };
  // Per ceiling: each method's compression usage (nodes reused from a frozen run made their calls there).
  const usage = caps.map(() => ({} as Record<string, Usage>));
  const countUsage = (ceiling: CeilingRun, method: string, node: NodeOutcome) => {
    if (node.reused_from === undefined) addUsage(usage[ceiling.index][method] ??= emptyUsage(), node.usage);
  };
  const contexts = new Set<string>(); // what the primary ceiling's rows name: the report's explorer reads them
  type Question = QuestionBlobs & { value: StoredQuestion; goldValue: unknown };
  type Ranked = NodeResult<{ ranking: StoredRankingValue | null }> | null;
  const runs = await runAnswerTask<QuestionBlobs, Question, Ranked>(context, {
    stages: {
      context: hotpotContextStage,
      answer: hotpotAnswerStage,
      score: hotpotScoreStage,
      rows: hotpotRowsStage,
    },
    conditions: methods.reduce((n, m) => n + generationsOf(m), 0),
    caps,
    methods: options.methods,
    generations: Array.from({ length: G }, (_, g) => g),
    units: questions,
    window: QUESTION_WINDOW,
    answers: options.answers,
    answerMaxTokens: options.answerMaxTokens,
    models,
    env,
    rowContext: true,
    // Read back from the store while the question is in flight: nothing holds every question.
    // Validated by `storedQuestion` (whose parse the stage bodies, handed this value, reuse), kept as read.
    async open(cq) {
      const value = await run.store.getJson(cq.question);
      storedQuestion(value);
      const goldValue = await run.store.getJson(cq.gold);
      CorpusGoldSchema.parse(goldValue);
      return { ...cq, value: value as StoredQuestion, goldValue };
    },
    freeze(cq, gen) {
      if (!usesRanking) return Promise.resolve(null);
      return executor.runStage(hotpotRankStage, {
        label: `rank q=${cq.id} gen=${gen}`,
        params: { generation: gen, decision_model: models.description.decision_model },
        inputs: { question: cq.question },
        values: { question: cq.value },
      }, modelEnv);
    },
    async condition(ceiling, cq, gen, method, rankNode) {
      const declared = byName.get(method)!;
      if (gen >= generationsOf(declared)) return null;
      const tag = ceiling.tag;
      const common = { input_cap: ceiling.cap, reserve: options.reserve, tokenizer: counter.hash };
      const question = cq.value;
      const inputs: Record<string, string> = { question: cq.question };
      const values: Record<string, unknown> = { question };
      if (rankNode !== null && declared.needs.includes("ranking")) {
        countUsage(ceiling, method, rankNode.node);
        await ceiling.count(method, "decision", rankNode.node);
      }
      if (rankNode !== null && contextNeeds(declared).includes("ranking")) {
        inputs.ranking = rankNode.node.outputs.ranking;
        values.ranking = rankNode.outputs.ranking;
      }
      if (declared.needs.includes("summary")) {
        const ranked = declared.needs.includes("ranking") && rankNode !== null;
        const summaryNode = await executor.runStage(hotpotSummaryStage, {
          label: `summary q=${cq.id} method=${method} gen=${gen}${tag}`,
          params: {
            method,
            generation: gen,
            ...common,
            chat_model: models.description.chat_model,
            max_retries: options.summaryRetries,
            ...suiteSetParams(declared, { fusion_share: options.fusionShare }),
          },
          inputs: ranked
            ? { question: cq.question, ranking: rankNode.node.outputs.ranking }
            : { question: cq.question },
          values: { question, ranking: rankNode?.outputs.ranking ?? undefined },
        }, modelEnv);
        inputs.summary = summaryNode.node.outputs.summary;
        values.summary = summaryNode.outputs.summary ?? undefined;
        countUsage(ceiling, method, summaryNode.node);
        await ceiling.count(method, "summarizer", summaryNode.node);
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
          inputs: { question: cq.question },
          values: { question },
        }, modelEnv);
        inputs.window = engineNode.node.outputs.window;
        values.window = engineNode.outputs.window;
        countUsage(ceiling, method, engineNode.node);
        // An engine's own model calls: its summarizer (chat endpoint) and its rankings (System One).
        await ceiling.count(method, "summarizer", engineNode.node, "chat");
        await ceiling.count(method, "decision", engineNode.node, "systemone");
      }
      const bound = declared.ceilingBinds;
      return {
        context: {
          label: `context q=${cq.id} method=${method}${bound ? ` gen=${gen}` : ""}${tag}`,
          params: { method, ...common },
          inputs,
          values,
        },
        bound,
        row: `q=${cq.id} method=${method} gen=${gen}`,
        answer: { question_id: cq.id, method, generation: gen },
      };
    },
    contextDone(ceiling, node) {
      if (ceiling.index === 0) contexts.add(node.node.outputs.messages);
    },
    score(cq, { node, answer, valid }, contextNode) {
      return {
        params: { valid },
        inputs: {
          answer: node.outputs.answer,
          gold: cq.gold,
          context: contextNode.node.outputs.messages,
          question: cq.question,
        },
        values: { answer, gold: cq.goldValue, context: contextNode.outputs.messages, question: cq.value },
      };
    },
    async rows(ceiling, cq, parts) {
      const rowsNode = await executor.runStage(hotpotRowsStage, {
        label: `rows q=${cq.id}${ceiling.tag}`,
        params: { methods: options.methods },
        inputs: sortedRecord({ meta: cq.meta, ...parts.inputs }),
      }, env);
      ceiling.aggregateInputs[rowsInput(cq.id)] = rowsNode.node.outputs.rows;
    },
  }, check);
  const compressionUsage = usage[0];
  const checkOnly = check.report(executor);
  if (checkOnly) return { compressionUsage, checkOnly, files: {}, validQuestions };
  const roles = (m: string) => {
    const needs = byName.get(m)!.needs;
    return [
      ...(needs.includes("ranking") ? ["decision" as const] : []),
      ...(needs.includes("summary") ? ["summarizer" as const] : []),
    ];
  };
  const { files } = await publishAnswerRuns(
    context,
    {
      aggregate: hotpotAggregateStage,
      ceilings: hotpotCeilingsStage,
      report: hotpotReportStage,
    },
    runs,
    env,
    (ceiling) => ({
      params: {
        methods: options.methods,
        compression_usage: usage[ceiling.index],
        answering_models: ceiling.answeringModels(options.methods, models.description, roles),
      },
      // The rows are read back from the store when the aggregate runs: nothing holds every row meanwhile.
      inputs: { head, ...sortedRecord(ceiling.aggregateInputs) },
    }),
    async (aggregate, ceilings) => ({
      params: {
        models: models.description,
        tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
        input_cap: options.inputCap,
        reserve: options.reserve,
        compressions: options.compressions,
        answers: options.answers,
        bootstrap: analysis.bootstrap ?? DEFAULT_RESAMPLES,
        cost: analysis.prices ? await runCost(run.readNodes(), analysis.prices, options.methods) : null,
        ...(caps.length > 1 ? { ceilings: caps } : {}),
        ...engineReportParams(options.engines),
      },
      // Read from the store by the report itself (cards and contexts one at a time): never the whole corpus.
      inputs: {
        aggregate: aggregate.node.outputs["aggregate.json"],
        head,
        ...Object.fromEntries(questions.map((q) => [`card:${q.id}`, q.card])),
        results: aggregate.node.outputs["results.json"],
        ...contextInputs(contexts),
        ...ceilings.inputs,
      },
    }),
  );
  return { compressionUsage, checkOnly: null, validQuestions, files };
}

/** A question node's id and output blobs: its public material, gold labels, id and type (meta), and card. */
type QuestionBlobs = { id: string } & Record<"question" | "gold" | "meta" | "card", string>;

/**
 * Runs the corpus head node and every question node of the run (of its shard) first: they are pure and
 * cheap, and afterwards the parsed corpus is released, so a run never holds the corpus while it answers.
 */
async function questionNodes(
  context: RunContext,
  shard: Shard | undefined,
  counter: TokenCounter,
): Promise<{ questions: QuestionBlobs[]; head: string; valid: number }> {
  const { executor, run, progress } = context;
  const corpusHash = run.header.sources["corpus"];
  // The corpus's bytes, read question by question (see corpusOf): never its questions all at once. The ones the
  // --corpus check read (the same SHA-256) are not read back from the store.
  const bytes = checkedCorpusBytes(corpusHash) ?? await run.store.get(corpusHash);
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
    if (node.node.status !== "invalid") valid++;
    blobs.push({ id, ...node.node.outputs } as QuestionBlobs);
  }
  forgetCorpus(corpusHash);
  return { questions: blobs, head: headNode.node.outputs.head, valid };
}
