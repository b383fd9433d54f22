/**
 * `hotpot-score`: one answer scored against gold (the official metrics) and the share of gold supporting
 * sentences present verbatim in the text the model reads (support_kept.ts); gold enters here only. And
 * `hotpot-rows`: the answer rows of one question at one ceiling, from the blobs of its answer, score and context
 * nodes: the aggregate then has one input per question, and each answer's nodes stay its ancestors in the DAG;
 * and the row types the aggregate and the reports read.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../../models/messages.ts";
import { METRIC_NAMES, predictionFromModelAnswer, scoreQuestion } from "../scoring.ts";
import { CorpusGoldSchema } from "../../corpus.ts";
import { supportSurvival } from "../support_kept.ts";
import { QuestionMetaSchema, storedQuestion } from "./question.ts";
import { answerRows, StoredAnswerSchema } from "../../../answer_pipeline.ts";
import { rowInput } from "../../../published.ts";
import { ContextInfoSchema } from "./context.ts";
import { parseSpan, topLevelArraySpans } from "../../../../core/json_spans.ts";
import { parseJsonBytes } from "../../../../core/json_read.ts";

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

/** One answer's row in results.json (its schema above: fields in print order). */
export type HotpotResultRow = z.infer<typeof HotpotResultRowSchema>;

/** A row without the answer's text and parsed prediction: what the aggregate and the stats read. */
export type HotpotRowCore = Omit<HotpotResultRow, "answer_text" | "prediction">;

/**
 * A row's core and the answer as the explorer shows it: what a report holds of every row of a run at once
 * (so kept small).
 */
export type HotpotRowFigures = HotpotRowCore & {
  /** The predicted answer, or the raw answer text when it could not be parsed ("" without an answer). */
  shown_answer: string;
};

/** The figures of a row (see {@link HotpotRowFigures}). */
export function rowFigures(row: HotpotResultRow): HotpotRowFigures {
  const { answer_text, prediction, ...figures } = row;
  return { ...figures, shown_answer: prediction?.answer ?? answer_text ?? "" };
}

/** Up to this many bytes a `results.json` is parsed whole (its rows then held at once, briefly). */
export const WHOLE_RESULTS_BYTES = 4 * 1024 * 1024;

/**
 * The figures of every row of a `results.json`'s bytes. Up to `wholeUpTo` bytes the text is parsed whole; a
 * larger one (or one the whole parse refuses) a row at a time, so that the rows as objects (with their answers'
 * texts) are never all held at once. A text the element scan cannot follow is parsed whole, so that
 * `JSON.parse` names what is wrong.
 */
export function readRowFigures(bytes: Uint8Array, wholeUpTo = WHOLE_RESULTS_BYTES): HotpotRowFigures[] {
  if (bytes.length <= wholeUpTo) {
    // What parses whole parses row by row to the same values (the rows are one level shallower); anything
    // else is read row by row below, which refuses it as it always has.
    try {
      const rows = parseJsonBytes(bytes);
      if (Array.isArray(rows)) return rows.map(rowFigures);
    } catch {
      // read row by row
    }
  }
  const spans = topLevelArraySpans(bytes);
  if (spans === null) {
    return (parseJsonBytes(bytes) as HotpotResultRow[]).map(rowFigures);
  }
  return spans.map((span) => rowFigures(parseSpan(bytes, span) as HotpotResultRow));
}
