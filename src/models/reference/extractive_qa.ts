/**
 * Rule (b) of the reference chat model: extractive question answering with cited supporting sentences.
 *
 * 1. Context sentences come from {@link parseContextSentences}; when any carry provenance (`[title, id]`),
 *    only those are candidates, otherwise all sentences are (minus the question itself).
 * 2. Candidates are ranked by BM25 of the question against `title + " " + sentence`; the top two (with
 *    provenance) are the supporting facts.
 * 3. A yes/no question (first word an auxiliary verb such as "is", "were", "did") is answered "yes" when
 *    the two top sentences share a content word that is not in the question (e.g. the same nationality),
 *    else "no". Otherwise the answer is a span of the best sentence that is not in the question: a number
 *    first for when/what year/how many/how much/how old questions, else the first capitalized phrase
 *    (phrases that merely start the sentence last), else the first number, else the first content word
 *    not in the question.
 *
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import { rankByRelevance } from "./bm25.ts";
import { type ContextSentence, contextTexts, findQuestion, parseContextSentences } from "./context.ts";
import { contentWords, STOP_WORDS, words } from "./text.ts";

/** The JSON answer of rule (b). */
export interface FactAnswer {
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

interface Span {
  text: string;
  numeric: boolean;
  /** Whether the span starts the sentence (capitalized by position, not necessarily a name). */
  initial: boolean;
}

const CONNECTORS = new Set(["of", "the", "de", "and", "von", "van", "la", "du", "del", "da"]);

/** Candidate spans of a sentence: maximal runs of capitalized words (with connectors) and numbers. */
function spansOf(sentence: string): Span[] {
  const tokens = sentence.split(/\s+/).map((token) =>
    token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}%]+$/gu, "")
  );
  const spans: Span[] = [];
  let run: string[] = [];
  let runStart = 0;
  const flush = () => {
    while (run.length > 0 && CONNECTORS.has(run[run.length - 1].toLowerCase())) run.pop();
    if (run.length > 0) spans.push({ text: run.join(" "), numeric: false, initial: runStart === 0 });
    run = [];
  };
  for (const [position, token] of tokens.entries()) {
    if (token === "") {
      flush();
      continue;
    }
    if (/^\p{N}[\p{N},.]*%?$/u.test(token)) {
      flush();
      spans.push({ text: token, numeric: true, initial: position === 0 });
    } else if (/^\p{Lu}/u.test(token)) {
      if (run.length === 0) runStart = position;
      run.push(token);
    } else if (run.length > 0 && CONNECTORS.has(token.toLowerCase())) {
      run.push(token);
    } else {
      flush();
    }
  }
  flush();
  return spans;
}

/** The answer span of `sentence` for `question` (see the module documentation); "" when nothing fits. */
export function pickAnswerSpan(question: string, sentence: string): string {
  const asked = new Set(words(question));
  const fresh = (span: Span) => words(span.text).some((word) => !asked.has(word) && !STOP_WORDS.has(word));
  const spans = spansOf(sentence).filter(fresh);
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

/** Rule (b): the answer and two supporting facts from the request's context. */
export function answerWithFacts(messages: readonly ChatMessage[]): FactAnswer {
  const question = findQuestion(messages);
  const all: ContextSentence[] = contextTexts(messages).flatMap((piece) =>
    parseContextSentences(piece.text, piece.fallbackTitle)
  );
  const cited = all.filter((sentence) => sentence.title !== undefined);
  const candidates = (cited.length > 0 ? cited : all).filter((sentence) => sentence.text !== question);
  if (candidates.length === 0) return { answer: "", supporting_facts: [] };
  const order = rankByRelevance(
    question,
    candidates.map((sentence) => `${sentence.title ?? ""} ${sentence.text}`),
  );
  const top = order.slice(0, 2).map((index) => candidates[index]);
  const facts: [string, number][] = top
    .filter((sentence) => sentence.title !== undefined && sentence.sentenceId !== undefined)
    .map((sentence) => [sentence.title!, sentence.sentenceId!]);
  let answer: string;
  if (isYesNoQuestion(question)) {
    const asked = new Set(contentWords(question));
    const first = new Set(contentWords(top[0].text).filter((word) => !asked.has(word)));
    const shared = top.length > 1 && contentWords(top[1].text).some((word) => first.has(word));
    answer = shared ? "yes" : "no";
  } else {
    answer = pickAnswerSpan(question, top[0].text);
  }
  return { answer, supporting_facts: facts };
}
