/**
 * `hotpot-rows`: the answer rows of one question at one ceiling, from the blobs of its answer, score and context
 * nodes: the aggregate then has one input per question, and each answer's nodes stay its ancestors in the DAG.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { answerRows } from "../../../answer_stage.ts";
import { rowInput } from "../../../published.ts";
import { QuestionMetaSchema } from "./question.ts";
import { ContextInfoSchema } from "./context.ts";
import { HotpotScoreSchema } from "./score.ts";

/** One answer's row, its fields in the order results.json prints them. */
export const HotpotResultRowSchema = z.object({
  question_id: z.string(),
  type: z.string(),
  method: z.string(),
  generation: z.number().int().nonnegative(),
  answer_index: z.number().int().nonnegative(),
  status: z.enum(["ok", "invalid"]),
  reason: z.string().nullable(),
  answer_text: z.string().nullable(),
  prediction: HotpotScoreSchema.shape.prediction,
  metrics: HotpotScoreSchema.shape.metrics,
  /** The provider's reported input tokens (null when no call was made). */
  input_tokens: z.number().int().nullable(),
  /** Our exact count of the answer input. */
  context_tokens: z.number().int().nullable(),
  within_cap: z.boolean().nullable(),
  /** Share of gold supporting sentences present verbatim in the text the model reads (support_kept.ts). */
  sp_survival: z.number().nullable(),
  /** Hash of the answer-input blob. */
  context_hash: z.string().nullable(),
});

/** The rows node's output: its key (so that no two rows nodes share an output blob) and its rows. */
export const QuestionRowsSchema = z.object({ node: z.string(), rows: z.array(HotpotResultRowSchema) });

/** The `hotpot-rows` stage. */
export const hotpotRowsStage = defineStage({
  name: "hotpot-rows",
  version: 1,
  doc: "The answer rows of one question at one ceiling (every method, generation and answer), from the " +
    "blobs of its answer, score and context nodes; what the aggregate gathers.",
  params: z.object({
    /** The run's methods, in the order rows are listed. */
    methods: z.array(z.string()),
  }),
  // Per answer row `<row>`: its status, answer, score, context count and context (by hash).
  inputs: ["meta", "status:*", "answer:*", "score:*", "info:*", "context:*"],
  hashOnlyInputs: ["context:*"],
  outputs: {
    // Not handed back: the aggregate reads it by hash (and validates it).
    rows: {
      schema: QuestionRowsSchema,
      held: false,
      doc: "the question's answer rows, by method, generation and answer",
    },
  },
  provider: false,
  run({ params, inputs, hashes, key }) {
    const question = QuestionMetaSchema.parse(inputs.meta);
    const schemas = { score: HotpotScoreSchema, info: ContextInfoSchema };
    const rows = answerRows(inputs, schemas, { field: "method", methods: params.methods }, (r) => ({
      question_id: question.id,
      type: question.type,
      method: r.params.method,
      generation: r.params.generation,
      answer_index: r.params.answer_index,
      status: r.valid ? "ok" as const : "invalid" as const,
      reason: r.valid ? null : r.status.reason,
      answer_text: r.answer?.content ?? null,
      prediction: r.score.prediction,
      metrics: r.score.metrics,
      input_tokens: r.answer?.usage.prompt_tokens ?? null,
      context_tokens: r.info.tokens,
      within_cap: r.info.within_cap,
      sp_survival: r.score.sp_survival,
      context_hash: hashes[rowInput("context", r.row)] ?? null,
    }));
    return Promise.resolve({ outputs: { rows: { node: key, rows } } });
  },
});
