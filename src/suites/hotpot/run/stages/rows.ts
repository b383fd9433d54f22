/**
 * `hotpot-rows`: the answer rows of one question at one ceiling (every method, generation and answer), built
 * from the blobs of its nodes (the answer's status and text, the score, the context's count and hash). The
 * aggregate gathers every question's rows node, so it has one input per question rather than five per answer,
 * and each answer's nodes stay its ancestors in the DAG through this node.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { AnswerStatusSchema, StoredAnswerSchema } from "../../../answer_stage.ts";
import { rowIds, rowInput } from "../../../published.ts";
import type { HotpotMethod } from "../methods.ts";
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

/** A row's answer (built once: a zod schema costs far more to build than to run). */
const RowAnswerSchema = StoredAnswerSchema.nullable();

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
    const rows: z.infer<typeof HotpotResultRowSchema>[] = rowIds(inputs).map((row) => {
      const status = AnswerStatusSchema.parse(inputs[rowInput("status", row)]);
      const answer = RowAnswerSchema.parse(inputs[rowInput("answer", row)]);
      const score = HotpotScoreSchema.parse(inputs[rowInput("score", row)]);
      const info = ContextInfoSchema.parse(inputs[rowInput("info", row)]);
      const p = status.params as { method: HotpotMethod; generation: number; answer_index: number };
      const ok = status.status === "ok" && answer !== null;
      return {
        question_id: question.id,
        type: question.type,
        method: p.method,
        generation: p.generation,
        answer_index: p.answer_index,
        status: ok ? "ok" : "invalid",
        reason: ok ? null : status.reason,
        answer_text: answer?.content ?? null,
        prediction: score.prediction,
        metrics: score.metrics,
        input_tokens: answer?.usage.prompt_tokens ?? null,
        context_tokens: info.tokens,
        within_cap: info.within_cap,
        sp_survival: score.sp_survival,
        context_hash: hashes[rowInput("context", row)] ?? null,
      };
    });
    const order = new Map(params.methods.map((m, i) => [m, i]));
    rows.sort((a, b) =>
      order.get(a.method)! - order.get(b.method)! || a.generation - b.generation ||
      a.answer_index - b.answer_index
    );
    return Promise.resolve({ outputs: { rows: { node: key, rows } } });
  },
});
