/**
 * `hotpot-question`: splits one corpus question into its public material (what the methods see) and its gold
 * labels (what only the score sees). Invalid when the collection failed its checks.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../models/messages.ts";
import { ArticleSchema } from "../../../data/hotpot_record.ts";
import {
  type Corpus,
  CorpusGoldSchema,
  type CorpusQuestion,
  CorpusQuestionSchema,
  CorpusSchema,
} from "../corpus.ts";
import { questionCard, QuestionCardSchema } from "../question_card.ts";

/** The public material of one question as stored in the `question` output. */
export const StoredQuestionSchema = z.object({
  id: z.string(),
  type: z.enum(["bridge", "comparison"]),
  question: z.string(),
  context: z.array(ArticleSchema),
  trajectory: z.array(ChatMessageSchema),
  valid: z.boolean(),
  reason: z.string().nullable(),
});
/** The public material of one question. */
export type StoredQuestion = z.infer<typeof StoredQuestionSchema>;

const parsedCorpora = new Map<string, Corpus>();

/** The corpus of a `corpus` input, validated once per blob. */
export function corpusOf(hash: string, value: unknown): Corpus {
  let corpus = parsedCorpora.get(hash);
  if (!corpus) {
    corpus = parseCorpusInPlace(value);
    parsedCorpora.clear(); // one corpus per run: keep memory flat
    parsedCorpora.set(hash, corpus);
  }
  return corpus;
}

/**
 * Validates a corpus read from the store question by question, replacing each raw question by its parsed copy
 * as it goes, so the raw and the parsed corpus are never both whole in memory (a 480-question corpus is ~60 MB
 * of objects). `value` must be the caller's own (freshly parsed JSON): its questions array is reused.
 */
export function parseCorpusInPlace(value: unknown): Corpus {
  const questions = (value as { questions?: unknown } | null)?.questions;
  if (!Array.isArray(questions)) return CorpusSchema.parse(value); // zod names what is wrong
  for (let i = 0; i < questions.length; i++) questions[i] = CorpusQuestionSchema.parse(questions[i]);
  const head = CorpusSchema.omit({ questions: true }).parse(value);
  return { ...head, questions: questions as CorpusQuestion[] };
}

/** Drops the parsed corpus of `hash` (once every question node of a run is made). */
export function forgetCorpus(hash: string): void {
  parsedCorpora.delete(hash);
}

/** A question's id and type: what the aggregate needs of a question, without its material. */
export const QuestionMetaSchema = z.object({ id: z.string(), type: z.enum(["bridge", "comparison"]) });

/** The `hotpot-question` stage. */
export const hotpotQuestionStage = defineStage({
  name: "hotpot-question",
  version: 4,
  doc: "One corpus question split into its public material, its gold labels, its id and type, and its card.",
  params: z.object({ id: z.string() }),
  inputs: ["corpus"],
  outputs: {
    question: { schema: StoredQuestionSchema, doc: "the question, its articles and trajectory, validity" },
    gold: { schema: CorpusGoldSchema, doc: "the gold answer and supporting facts (read only by the score)" },
    meta: { schema: QuestionMetaSchema, doc: "the question's id and type (read by the aggregate)" },
    card: {
      schema: QuestionCardSchema,
      doc: "what the report shows of the question: its facts, gold answer and supporting sentences",
    },
  },
  provider: false,
  run({ params, inputs, hashes }) {
    const corpus = corpusOf(hashes.corpus, inputs.corpus);
    const cq = corpus.questions.find((q) => q.id === params.id);
    if (!cq) throw new Error(`hotpot-question: question ${params.id} is not in the corpus`);
    const { id, type, question, context, trajectory, valid, reason } = cq;
    return Promise.resolve({
      outputs: {
        question: { id, type, question, context, trajectory, valid, reason: reason ?? null },
        gold: corpus.gold[cq.id],
        meta: { id, type },
        card: questionCard(cq, corpus.gold[cq.id]),
      },
      status: valid ? "ok" as const : "invalid" as const,
      ...(valid ? {} : { reason: `collection invalid: ${reason}` }),
    });
  },
});
