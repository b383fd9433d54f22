/**
 * `hotpot run` over the run store. Per question: a `hotpot-question` node splits the corpus into the public
 * material and the gold labels; per generation a `hotpot-rank` node (decision model) and `hotpot-summary`
 * nodes (chat model) freeze the compression artifacts; pure `hotpot-context` nodes render each method's answer
 * input; `hotpot-answer` nodes (always afresh) call the chat model; `hotpot-score` nodes score against gold.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import { answerStage, CheckOnlyComparison, type CheckOnlyReport } from "../answer_stage.ts";
import { rankOutcome } from "../rank_outcome.ts";
import { summarizeWithin } from "../../methods/summarize.ts";
import { countPrompt } from "../../tokens/budget.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { predictionFromModelAnswer } from "./answer_parse.ts";
import type { Corpus, CorpusGold } from "./corpus.ts";
import {
  compactedContext,
  evidenceText,
  fullContext,
  fusionKept,
  type HotpotMethod,
  jevKept,
  type MethodInput,
  questionUnits,
  taskText,
  unitsById,
} from "./methods.ts";
import { type HotpotMetrics, METRIC_NAMES, scoreQuestion } from "./scoring.ts";

/** The protocol knobs of a run. */
export interface HotpotRunOptions {
  methods: HotpotMethod[];
  inputCap: number;
  reserve: number;
  compressions: number;
  answers: number;
  fusionShare: number;
  summaryRetries: number;
  answerMaxTokens: number;
  /** Appended to the labels of ceiling-dependent nodes of compressed methods (a ceiling sweep's ` cap=N`). */
  labelTag?: string;
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

/** One answer's row in results.json. */
export interface HotpotResultRow {
  question_id: string;
  type: string;
  method: HotpotMethod;
  generation: number;
  answer_index: number;
  status: "ok" | "invalid";
  reason: string | null;
  answer_text: string | null;
  prediction: { answer?: string; sp?: readonly unknown[] } | null;
  metrics: HotpotMetrics;
  /** The provider's reported input tokens (null when no call was made). */
  input_tokens: number | null;
  /** Our exact count of the answer input. */
  context_tokens: number | null;
  within_cap: boolean | null;
  /** Share of gold supporting sentences present verbatim in the answer input. */
  sp_survival: number | null;
  /** Hash of the answer-input blob. */
  context_hash: string | null;
}

/** What the suite returns besides the files it exports. */
export interface HotpotRunOutcome {
  rows: HotpotResultRow[];
  compressionUsage: Record<string, { calls: number; input_tokens: number; output_tokens: number }>;
  checkOnly: CheckOnlyReport | null;
}

interface ContextInfo {
  tokens: number;
  within_cap: boolean;
  kept: string[] | null;
  summary_tokens: number | null;
}

function zeroMetrics(): HotpotMetrics {
  return Object.fromEntries(METRIC_NAMES.map((k) => [k, 0])) as HotpotMetrics;
}

/** Share of gold supporting sentences whose text appears verbatim in the messages. */
export function supportSurvival(
  messages: readonly ChatMessage[],
  question: MethodInput,
  gold: CorpusGold,
): number {
  const text = messages.map((m) => `${m.content ?? ""}`).join("\n");
  if (gold.supporting_facts.length === 0) return 0;
  let found = 0;
  for (const fact of gold.supporting_facts) {
    const sentence = question.context.find((a) => a.title === fact.title)?.sentences[fact.sent_id];
    if (sentence !== undefined && sentence.trim() !== "" && text.includes(sentence.trim())) found++;
  }
  return found / gold.supporting_facts.length;
}

/** Runs the hotpot conditions of a corpus. */
export async function runHotpot(
  context: RunContext,
  corpus: Corpus,
  options: HotpotRunOptions,
  models: ModelSetup,
  counter: TokenCounter,
): Promise<HotpotRunOutcome> {
  const { executor, run, progress } = context;
  const corpusHash = run.header.sources["corpus"];
  const limit = options.inputCap - options.reserve;
  const tag = (method: string) => (method === "full" ? "" : options.labelTag ?? "");
  const usesRanking = options.methods.some((m) => m === "jev" || m === "jev+summary");
  const usesSummary = options.methods.some((m) => m === "summary" || m === "jev+summary");
  const q = corpus.questions.length;
  const G = options.compressions;
  progress.plan("hotpot-question", q);
  if (usesRanking) progress.plan("hotpot-rank", q * G);
  if (usesSummary) {
    progress.plan(
      "hotpot-summary",
      q * G * options.methods.filter((m) => m.includes("summary")).length,
    );
  }
  progress.plan("hotpot-context", q * G * options.methods.length);
  progress.plan("hotpot-answer", q * G * options.methods.length * options.answers);
  progress.plan("hotpot-score", q * G * options.methods.length * options.answers);

  const compressionUsage: HotpotRunOutcome["compressionUsage"] = {};
  const addUsage = (
    method: string,
    usage: { calls: number; input_tokens: number; output_tokens: number },
  ) => {
    const u = compressionUsage[method] ??= { calls: 0, input_tokens: 0, output_tokens: 0 };
    u.calls += usage.calls;
    u.input_tokens += usage.input_tokens;
    u.output_tokens += usage.output_tokens;
  };
  const check = new CheckOnlyComparison();
  const common = { input_cap: options.inputCap, reserve: options.reserve, tokenizer: counter.hash };

  const perQuestion = await Promise.all(corpus.questions.map(async (cq) => {
    const questionNode = await executor.execute(
      {
        stage: "hotpot-question",
        version: 1,
        label: `question q=${cq.id}`,
        params: { id: cq.id },
        inputs: { corpus: corpusHash },
      },
      () => {
        const { id, question, context: articles, trajectory, valid, reason } = cq;
        return Promise.resolve({
          outputs: {
            question: { id, question, context: articles, trajectory, valid, reason: reason ?? null },
            gold: corpus.gold[cq.id],
          },
          status: valid ? "ok" as const : "invalid" as const,
          ...(valid ? {} : { reason: `collection invalid: ${reason}` }),
        });
      },
    );
    const question = questionNode.outputs.question as MethodInput & { valid: boolean; reason: string | null };
    const gold = questionNode.outputs.gold as CorpusGold;
    const questionHash = questionNode.node.outputs.question;
    const goldHash = questionNode.node.outputs.gold;
    const rows: HotpotResultRow[] = [];

    // Generations, methods and answers run concurrently; only data dependencies order them (rank →
    // summary → context → answers), so the endpoint limiter always has queued work. Rows are sorted below.
    await Promise.all(Array.from({ length: G }, async (_, gen) => {
      let rankingHash: string | undefined;
      let ranking: { ok: boolean; order: string[]; error?: string } | undefined;
      if (usesRanking) {
        const rankNode = await executor.execute(
          {
            stage: "hotpot-rank",
            version: 1,
            label: `rank q=${cq.id} gen=${gen}`,
            params: { generation: gen, decision_model: models.description.decision_model },
            inputs: { question: questionHash },
            provider: true,
            outputNames: ["ranking"],
          },
          async () => {
            if (!question.valid) {
              return {
                outputs: { ranking: { ok: false, order: [], error: "collection invalid" } },
                status: "invalid",
              };
            }
            return await rankOutcome(models.decision, questionUnits(question), taskText(question));
          },
        );
        rankingHash = rankNode.node.outputs.ranking;
        ranking = rankNode.outputs.ranking as typeof ranking;
        for (const m of ["jev", "jev+summary"]) {
          if (options.methods.includes(m as HotpotMethod) && rankNode.node.reused_from === undefined) {
            addUsage(m, rankNode.node.usage);
          }
        }
      }

      await Promise.all(options.methods.map(async (method) => {
        // 1. Compression artifact (summary) where the method needs one.
        let summaryHash: string | undefined;
        let summaryValue: { ok: boolean; text: string | null; kept: string[]; reason?: string } | undefined;
        if (method === "summary" || method === "jev+summary") {
          const inputs: Record<string, string> = { question: questionHash };
          if (method === "jev+summary" && rankingHash) inputs.ranking = rankingHash;
          const summaryNode = await executor.execute(
            {
              stage: "hotpot-summary",
              version: 1,
              label: `summary q=${cq.id} method=${method} gen=${gen}${tag(method)}`,
              params: {
                method,
                generation: gen,
                ...common,
                chat_model: models.description.chat_model,
                max_retries: options.summaryRetries,
                ...(method === "jev+summary" ? { fusion_share: options.fusionShare } : {}),
              },
              inputs,
              provider: true,
              outputNames: ["summary"],
            },
            async () => {
              const fail = (reason: string) => ({
                outputs: { summary: { ok: false, text: null, kept: [], reason } },
                status: "invalid" as const,
                reason,
              });
              if (!question.valid) return fail("collection invalid");
              let kept: ReturnType<typeof questionUnits> = [];
              let rest = questionUnits(question);
              if (method === "jev+summary") {
                if (!ranking?.ok) return fail(`ranking failed: ${ranking?.error}`);
                kept = fusionKept(counter, question, ranking.order, limit, options.fusionShare);
                const keptIds = new Set(kept.map((u) => u.id));
                rest = rest.filter((u) => !keptIds.has(u.id));
              }
              const base = countPrompt(counter, compactedContext(question, kept, ""));
              const outcome = await summarizeWithin({
                chat: models.chat,
                task: taskText(question),
                evidence: evidenceText(rest),
                retained: kept.length > 0 ? evidenceText(kept) : undefined,
                space: limit - base,
                promptTokens: (summary) => countPrompt(counter, compactedContext(question, kept, summary)),
                limit,
                maxRetries: options.summaryRetries,
              });
              const keptIds = kept.map((u) => u.id);
              if (!outcome.ok) {
                return {
                  outputs: {
                    summary: {
                      ok: false,
                      text: outcome.summary ?? null,
                      kept: keptIds,
                      reason: outcome.reason,
                      attempts: outcome.attempts,
                    },
                  },
                  requests: outcome.records,
                  status: "invalid" as const,
                  reason: outcome.reason,
                };
              }
              return {
                outputs: {
                  summary: { ok: true, text: outcome.summary, kept: keptIds, attempts: outcome.attempts },
                },
                requests: outcome.records,
              };
            },
          );
          summaryHash = summaryNode.node.outputs.summary;
          summaryValue = summaryNode.outputs.summary as typeof summaryValue;
          // A node that came from a frozen run (now, or before a resume) made its calls there.
          if (summaryNode.node.reused_from === undefined) addUsage(method, summaryNode.node.usage);
        }

        // 2. The answer input (pure, rebuilt by --check-only).
        const contextInputs: Record<string, string> = { question: questionHash };
        if (method === "jev" && rankingHash) contextInputs.ranking = rankingHash;
        if (summaryHash) contextInputs.summary = summaryHash;
        const contextNode = await executor.execute(
          {
            stage: "hotpot-context",
            version: 1,
            label: `context q=${cq.id} method=${method}${method === "full" ? "" : ` gen=${gen}`}${
              tag(method)
            }`,
            params: { method, ...common },
            inputs: contextInputs,
            // Always rebuilt by this program, never taken from a frozen run: --check-only must compare what
            // this code renders (a changed framing keeps the key) with the frozen run's answer inputs.
            reuseFrozen: false,
          },
          () => {
            const fail = (reason: string) =>
              Promise.resolve({
                outputs: { messages: null, info: null },
                status: "invalid" as const,
                reason,
              });
            if (!question.valid) return fail("collection invalid");
            let messages: ChatMessage[];
            let kept: string[] | null = null;
            let summaryTokens: number | null = null;
            if (method === "full") messages = fullContext(question);
            else if (method === "jev") {
              if (!ranking?.ok) return fail(`ranking failed: ${ranking?.error}`);
              const selection = jevKept(counter, question, ranking.order, limit);
              messages = compactedContext(question, selection.kept, "");
              kept = selection.kept.map((u) => u.id);
            } else {
              if (!summaryValue?.ok || summaryValue.text === null) {
                return fail(`summary invalid: ${summaryValue?.reason}`);
              }
              kept = summaryValue.kept;
              messages = compactedContext(question, unitsById(question, kept), summaryValue.text);
              summaryTokens = counter.countText(summaryValue.text);
            }
            const tokens = countPrompt(counter, messages);
            const info: ContextInfo = {
              tokens,
              within_cap: tokens <= limit,
              kept,
              summary_tokens: summaryTokens,
            };
            if (method !== "full" && tokens > limit) {
              return Promise.resolve({
                outputs: { messages, info },
                status: "invalid" as const,
                reason: `answer input ${tokens} tokens exceeds ${limit}`,
              });
            }
            return Promise.resolve({ outputs: { messages, info } });
          },
        );
        const contextMessages = contextNode.outputs.messages as ChatMessage[] | null;
        const info = contextNode.outputs.info as ContextInfo | null;
        const contextHash = contextNode.node.outputs.messages;

        // 3. Answers and scores.
        await Promise.all(Array.from({ length: options.answers }, async (_, a) => {
          const label = `answer q=${cq.id} method=${method} gen=${gen} ans=${a}${tag(method)}`;
          const { node: answerNode, answer, valid: answerValid } = await answerStage(executor, {
            stage: "hotpot-answer",
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
            inputCap: method === "full" ? null : options.inputCap,
          });
          check.record(executor, label, contextHash);
          const scoreNode = await executor.execute(
            {
              stage: "hotpot-score",
              version: 1,
              label: `score q=${cq.id} method=${method} gen=${gen} ans=${a}${tag(method)}`,
              params: { valid: answerValid },
              inputs: { answer: answerNode.node.outputs.answer, gold: goldHash, context: contextHash },
            },
            () => {
              const prediction = answerValid ? predictionFromModelAnswer(answer!.content) : null;
              const metrics = prediction ? scoreQuestion(prediction, gold) : zeroMetrics();
              const survival = contextMessages ? supportSurvival(contextMessages, question, gold) : null;
              return Promise.resolve({ outputs: { score: { prediction, metrics, sp_survival: survival } } });
            },
          );
          const score = scoreNode.outputs.score as {
            prediction: HotpotResultRow["prediction"];
            metrics: HotpotMetrics;
            sp_survival: number | null;
          };
          rows.push({
            question_id: cq.id,
            type: cq.type,
            method,
            generation: gen,
            answer_index: a,
            status: answerValid ? "ok" : "invalid",
            reason: answerValid ? null : answerNode.node.reason ?? null,
            answer_text: answer?.content ?? null,
            prediction: score.prediction,
            metrics: score.metrics,
            input_tokens: answer?.usage.prompt_tokens ?? null,
            context_tokens: info?.tokens ?? null,
            within_cap: info?.within_cap ?? null,
            sp_survival: score.sp_survival,
            context_hash: contextHash ?? null,
          });
        }));
      }));
    }));
    return rows;
  }));
  const rows = perQuestion.flat();
  const order = new Map(options.methods.map((m, i) => [m, i]));
  rows.sort((a, b) =>
    a.question_id.localeCompare(b.question_id) || order.get(a.method)! - order.get(b.method)! ||
    a.generation - b.generation || a.answer_index - b.answer_index
  );
  return { rows, compressionUsage, checkOnly: check.report(executor) };
}
