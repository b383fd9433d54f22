/**
 * The hotpot compression stages, frozen per generation before any answer: `hotpot-rank` (the decision model
 * orders the question's units), `hotpot-summary` (the chat model summarizes the evidence in the space left;
 * for fusion, what the ranking did not keep within its share) and `hotpot-engine` (a context engine compacts
 * the question's public history to the evidence space every method has; the shared stage: `answer_pipeline.ts`).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { summarizeWithin } from "../../../../methods/summarize.ts";
import { defineEngineStage, defineRankStage, type ModelStageEnv } from "../../../answer_pipeline.ts";
import { readPlain } from "../../../../core/plain_check.ts";
import {
  isPlainRanking,
  isPlainSummary,
  StoredRankingSchema,
  StoredSummarySchema,
} from "../../../answer_pipeline.ts";
import { evidenceSpaceOf, hotpotFrame, questionUnits, taskText } from "../methods.ts";
import { joinUnits } from "../../../../methods/evidence_unit.ts";
import { declaredMethod, frameTokens, type MethodParams } from "../../../../methods/registry.ts";
import { storedQuestion, StoredQuestionSchema } from "./question.ts";
import { publicHistory } from "../../../../methods/engine_method.ts";

/** A ranking input that may be null (built once: a zod schema costs far more to build than to run). */
const OptionalRankingSchema = StoredRankingSchema.nullable();

/** The `hotpot-rank` stage. */
export const hotpotRankStage = defineRankStage({
  name: "hotpot-rank",
  doc: "The decision model's ranking of one question's units (one generation).",
  params: { generation: z.number().int(), decision_model: z.string() },
  inputs: ["question"],
  units(_, inputs, _env: ModelStageEnv) {
    const question = storedQuestion(inputs.question);
    if (!question.valid) return { invalid: "collection invalid" };
    return { units: questionUnits(question), task: taskText(question) };
  },
});

const Common = {
  method: z.string(),
  generation: z.number().int(),
  input_cap: z.number().int(),
  reserve: z.number().int(),
  tokenizer: z.string(),
  chat_model: z.string(),
  max_retries: z.number().int(),
};
const COMMON = new Set(Object.keys(Common));
// A method's own parameters (e.g. jev+summary's `fusion_share`) follow the common ones.
const SummaryParams = z.object({ ...Common, fusion_share: z.number().optional() }).catchall(z.unknown());

/** The `hotpot-summary` stage. */
export const hotpotSummaryStage = defineStage({
  name: "hotpot-summary",
  version: 2,
  doc: "The chat model's summary of one question's evidence (fusion: of what the ranking did not keep).",
  params: SummaryParams,
  inputs: ["question", "ranking"],
  outputs: {
    summary: {
      schema: StoredSummarySchema.nullable(),
      plain: isPlainSummary,
      doc: "the summary, the units kept beside it, with the node key",
    },
  },
  provider: true,
  async run({ params, inputs, key, env }: {
    params: z.infer<typeof SummaryParams>;
    inputs: Record<string, unknown>;
    key: string;
    env: ModelStageEnv;
  }) {
    const { counter } = env;
    const question = storedQuestion(inputs.question);
    const limit = params.input_cap - params.reserve;
    const fail = (reason: string) => ({
      outputs: { summary: { node: key, ok: false, text: null, kept: [], reason } },
      status: "invalid" as const,
      reason,
    });
    if (!question.valid) return fail("collection invalid");
    const method = declaredMethod(params.method);
    if (!method?.needs.includes("summary")) {
      throw new Error(`hotpot-summary: ${params.method} needs no summary`);
    }
    let order: readonly string[] | undefined;
    if (method.needs.includes("ranking")) {
      const ranking = inputs.ranking === undefined
        ? undefined
        : readPlain(OptionalRankingSchema, isPlainRanking, inputs.ranking);
      if (!ranking?.ok) return fail(`ranking failed: ${ranking?.error}`);
      order = ranking.order;
    }
    // A method's own parameters (fusion_share) are every param but the common ones.
    const own = Object.fromEntries(
      Object.entries(params).filter(([name]) => !COMMON.has(name)),
    ) as MethodParams;
    const frame = hotpotFrame(counter, question, limit);
    const kept = method.retain?.(frame, order, own) ?? [];
    const keptIds = new Set(kept.map((u) => u.id));
    const rest = questionUnits(question).filter((u) => !keptIds.has(u.id));
    const base = frameTokens(frame, kept, "");
    const outcome = await summarizeWithin({
      chat: env.chat,
      task: taskText(question),
      evidence: joinUnits(rest),
      retained: kept.length > 0 ? joinUnits(kept) : undefined,
      space: limit - base,
      promptTokens: (summary) => frameTokens(frame, kept, summary),
      limit,
      maxRetries: params.max_retries,
    });
    const { attempts, records: requests } = outcome;
    const stored = { node: key, kept: kept.map((u) => u.id), attempts };
    if (outcome.ok) return { outputs: { summary: { ...stored, ok: true, text: outcome.summary } }, requests };
    const { reason } = outcome;
    const summary = { ...stored, ok: false, text: outcome.summary ?? null, reason };
    return { outputs: { summary }, requests, status: "invalid" as const, reason };
  },
});

/** The `hotpot-engine` stage. */
export const hotpotEngineStage = defineEngineStage({
  name: "hotpot-engine",
  doc: "A context engine's compaction of one question's public history (one generation), to the evidence " +
    "space every method has under the ceiling.",
  name_param: "method",
  params: { method: z.string() },
  inputs: ["question"],
  history(params, inputs, env: ModelStageEnv) {
    if (env.counter.hash !== params.tokenizer) {
      throw new Error(`hotpot-engine: tokenizer ${params.tokenizer} needed`);
    }
    const question = StoredQuestionSchema.parse(inputs.question);
    if (!question.valid) return { invalid: "collection invalid" };
    // The engine's whole window (its head included) must fit the evidence space, so a window that keeps the
    // head costs the engine what the head costs every other method.
    return {
      name: params.method,
      messages: publicHistory(question.trajectory),
      budget: evidenceSpaceOf(env.counter, question, params.input_cap - params.reserve),
    };
  },
});
