/**
 * `hotpot-score`: one answer scored against gold (the official metrics) and the share of gold supporting
 * sentences present verbatim in the text the model reads (support_kept.ts). Gold enters here only.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../../models/messages.ts";
import { predictionFromModelAnswer } from "../answer_parse.ts";
import { CorpusGoldSchema } from "../../corpus.ts";
import { supportSurvival } from "../support_kept.ts";
import { METRIC_NAMES, scoreQuestion } from "../scoring.ts";
import { storedQuestion } from "./question.ts";
import { StoredAnswerSchema } from "../../../answer_stage.ts";

/** A score node's `score` output. */
export const HotpotScoreSchema = z.object({
  node: z.string(),
  prediction: z.object({ answer: z.string().optional(), sp: z.array(z.unknown()).optional() }).nullable(),
  metrics: z.record(z.enum(METRIC_NAMES), z.number()),
  sp_survival: z.number().nullable(),
});

// Built once: a zod schema is costly to make.
const ScoredAnswerSchema = StoredAnswerSchema.nullable();
const ScoredContextSchema = z.array(ChatMessageSchema).nullable();

/** The `hotpot-score` stage. */
export const hotpotScoreStage = defineStage({
  name: "hotpot-score",
  version: 3,
  doc: "One answer scored against gold (official EM/F1, SP, joint; decimal ids malformed) and the verbatim " +
    "survival of gold sentences in the text the model reads (tool results decoded).",
  params: z.object({ valid: z.boolean() }),
  inputs: ["answer", "gold", "context", "question"],
  outputs: {
    score: {
      schema: HotpotScoreSchema,
      held: false,
      doc: "prediction, metrics (zero when invalid), SP survival",
    },
  },
  provider: false,
  run({ params, inputs, key }) {
    const answer = ScoredAnswerSchema.parse(inputs.answer);
    const gold = CorpusGoldSchema.parse(inputs.gold);
    const messages = ScoredContextSchema.parse(inputs.context);
    const question = storedQuestion(inputs.question);
    const prediction = params.valid && answer ? predictionFromModelAnswer(answer.content) : null;
    const metrics = scoreQuestion(prediction ?? {}, gold); // no prediction: every metric zero
    const survival = messages ? supportSurvival(messages, question, gold) : null;
    return Promise.resolve({
      outputs: { score: { node: key, prediction, metrics, sp_survival: survival } },
    });
  },
});
