/**
 * `hotpot-score`: scores one answer against gold with the official HotpotQA metrics (EM/F1, SP, joint) and the
 * LLM-free share of gold supporting sentences present verbatim in the answer input. Gold enters here only.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import { predictionFromModelAnswer } from "../answer_parse.ts";
import { type CorpusGold, CorpusGoldSchema } from "../corpus.ts";
import type { MethodInput } from "../methods.ts";
import { type HotpotMetrics, METRIC_NAMES, scoreQuestion } from "../scoring.ts";
import { StoredQuestionSchema } from "./question.ts";
import { StoredAnswerSchema } from "../../answer_stage.ts";

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

function zeroMetrics(): HotpotMetrics {
  return Object.fromEntries(METRIC_NAMES.map((k) => [k, 0])) as HotpotMetrics;
}

/** A score node's `score` output. */
export const HotpotScoreSchema = z.object({
  node: z.string(),
  prediction: z.object({ answer: z.string().optional(), sp: z.array(z.unknown()).optional() }).nullable(),
  metrics: z.record(z.enum(METRIC_NAMES), z.number()),
  sp_survival: z.number().nullable(),
});
/** A score node's `score` output. */
export type HotpotScore = z.infer<typeof HotpotScoreSchema>;

/** The `hotpot-score` stage. */
export const hotpotScoreStage = defineStage({
  name: "hotpot-score",
  version: 2,
  doc:
    "One answer scored against gold (official EM/F1, SP, joint) and the verbatim survival of gold sentences.",
  params: z.object({ valid: z.boolean() }),
  inputs: ["answer", "gold", "context", "question"],
  outputs: {
    score: { schema: HotpotScoreSchema, doc: "prediction, metrics (zero when invalid), SP survival" },
  },
  provider: false,
  run({ params, inputs, key }) {
    const answer = StoredAnswerSchema.nullable().parse(inputs.answer);
    const gold = CorpusGoldSchema.parse(inputs.gold);
    const messages = z.array(ChatMessageSchema).nullable().parse(inputs.context);
    const question = StoredQuestionSchema.parse(inputs.question);
    const prediction = params.valid && answer ? predictionFromModelAnswer(answer.content) : null;
    const metrics = prediction ? scoreQuestion(prediction, gold) : zeroMetrics();
    const survival = messages ? supportSurvival(messages, question, gold) : null;
    return Promise.resolve({
      outputs: { score: { node: key, prediction, metrics, sp_survival: survival } },
    });
  },
});
