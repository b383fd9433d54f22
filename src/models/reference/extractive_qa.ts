/**
 * Rule (b) of the reference chat model: extractive QA with cited supporting sentences (those with provenance
 * when any have it): comparisons (comparison.ts), bridges (bridge.ts), else the top two BM25 sentences: yes/no
 * by a shared new content word, or a span of the best one.
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import { rankByRelevance } from "./bm25.ts";
import { type ContextSentence, contextTexts, findQuestion, parseContextSentences } from "./context.ts";
import { answerBridge } from "./bridge.ts";
import { answerComparison } from "./comparison.ts";
import { isFresh, spansOf } from "./spans.ts";
import { contentWords, words } from "./text.ts";

interface FactAnswer {
  answer: string;
  supporting_facts: [string, number][];
}

const AUXILIARIES = new Set(
  "is are was were do does did can could has have had will would should am".split(" "),
);
const NUMERIC_QUESTION = /^(?:when|what year|which year|how many|how much|how old|how long|in what year)\b/i;

/** Whether `question` expects a yes/no answer (its first word is an auxiliary verb). */
export function isYesNoQuestion(question: string): boolean {
  const first = words(question)[0];
  return first !== undefined && AUXILIARIES.has(first);
}

/** The answer span of `sentence` (a number first for when/how-many questions, else a name); "" when none. */
export function pickAnswerSpan(question: string, sentence: string): string {
  const asked = new Set(words(question));
  const spans = spansOf(sentence).filter((span) => isFresh(span, asked));
  const numbers = spans.filter((span) => span.numeric);
  const names = [
    ...spans.filter((span) => !span.numeric && !span.initial),
    ...spans.filter((span) => !span.numeric && span.initial),
  ];
  const stripped = question.replace(/^\s*question\s*:\s*/i, "");
  const ordered = NUMERIC_QUESTION.test(stripped) ? [...numbers, ...names] : [...names, ...numbers];
  if (ordered.length > 0) return ordered[0].text;
  return contentWords(sentence).find((word) => !asked.has(word)) ?? "";
}

function factsOf(sentences: readonly ContextSentence[]): [string, number][] {
  return sentences
    .filter((sentence) => sentence.title !== undefined && sentence.sentenceId !== undefined)
    .map((sentence) => [sentence.title!, sentence.sentenceId!]);
}

/** Rule (b): the answer and its supporting facts from the request's context. */
export function answerWithFacts(messages: readonly ChatMessage[]): FactAnswer {
  const question = findQuestion(messages);
  const all: ContextSentence[] = contextTexts(messages).flatMap((piece) =>
    parseContextSentences(piece.text, piece.fallbackTitle)
  );
  const cited = all.filter((sentence) => sentence.title !== undefined);
  const candidates = (cited.length > 0 ? cited : all).filter((sentence) => sentence.text !== question);
  if (candidates.length === 0) return { answer: "", supporting_facts: [] };
  const read = answerComparison(question, candidates) ??
    (isYesNoQuestion(question) ? undefined : answerBridge(question, candidates));
  if (read !== undefined) return { answer: read.answer, supporting_facts: factsOf(read.facts) };
  const order = rankByRelevance(
    question,
    candidates.map((sentence) => `${sentence.title ?? ""} ${sentence.text}`),
  );
  const top = order.slice(0, 2).map((index) => candidates[index]);
  let answer: string;
  if (isYesNoQuestion(question)) {
    const asked = new Set(contentWords(question));
    const first = new Set(contentWords(top[0].text).filter((word) => !asked.has(word)));
    const shared = top.length > 1 && contentWords(top[1].text).some((word) => first.has(word));
    answer = shared ? "yes" : "no";
  } else {
    answer = pickAnswerSpan(question, top[0].text);
  }
  return { answer, supporting_facts: factsOf(top) };
}
