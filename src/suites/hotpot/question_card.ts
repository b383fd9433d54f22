/**
 * What the hotpot report reads in place of the corpus: its head and per question a card (public facts, gold
 * labels), each a small node output read one at a time.
 * @module
 */
import { z } from "zod";
import {
  type Corpus,
  type CorpusGold,
  type CorpusQuestion,
  CorpusQuestionSchema,
  CorpusSchema,
} from "./corpus.ts";

/** A corpus without its questions and gold labels, with the questions' ids in corpus order. */
export const CorpusHeadSchema = CorpusSchema.omit({ questions: true, gold: true }).extend({
  question_ids: z.array(z.string()),
});
/** A corpus head. */
export type CorpusHead = z.infer<typeof CorpusHeadSchema>;

/** One question as its report shows it. */
export const QuestionCardSchema = CorpusQuestionSchema.pick({
  id: true,
  type: true,
  question: true,
  valid: true,
  reason: true,
  system_prompt: true,
  files_unchanged: true,
}).extend({
  /** The gold answer and supporting facts, each with its sentence's text (null: the corpus has none). */
  gold: z.object({
    answer: z.string(),
    supporting_facts: z.array(z.object({ title: z.string(), sent_id: z.number().int(), text: z.string() })),
  }).nullable(),
});
/** One question as its report shows it. */
export type QuestionCard = z.infer<typeof QuestionCardSchema>;

/** The corpus as a report reads it: its head and, in corpus order, the cards of the run's questions. */
export interface ReportCorpus extends CorpusHead {
  questions: QuestionCard[];
}

/** The head of a corpus: the corpus without questions and gold labels, and its questions' ids in order. */
export function corpusHead(corpus: Omit<Corpus, "questions">, questionIds: readonly string[]): CorpusHead {
  const { gold: _gold, ...head } = corpus;
  return { ...head, question_ids: [...questionIds] };
}

/** The card of one question (a supporting fact whose sentence is missing gets an empty text). */
export function questionCard(q: CorpusQuestion, gold: CorpusGold | undefined): QuestionCard {
  const { id, type, question, valid, reason, system_prompt, files_unchanged } = q;
  return {
    id,
    type,
    question,
    valid,
    ...(reason === undefined ? {} : { reason }),
    ...(system_prompt === undefined ? {} : { system_prompt }),
    ...(files_unchanged === undefined ? {} : { files_unchanged }),
    gold: gold === undefined ? null : {
      answer: gold.answer,
      supporting_facts: gold.supporting_facts.map((f) => ({
        ...f,
        text: q.context.find((a) => a.title === f.title)?.sentences[f.sent_id]?.trim() ?? "",
      })),
    },
  };
}

/** A whole corpus as a report reads it (its head and every question's card). */
export function reportCorpusOf(corpus: Corpus): ReportCorpus {
  const { questions, ...rest } = corpus;
  return {
    ...corpusHead(rest, questions.map((q) => q.id)),
    questions: questions.map((q) => questionCard(q, corpus.gold[q.id])),
  };
}
