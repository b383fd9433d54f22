/**
 * Candidate answer spans of the reference model's extractive reader: names (maximal runs of capitalized words
 * and connectors such as "of"), numbers, the entities a question names, and the sentences about a name.
 * @module
 */
import type { ContextSentence } from "./context.ts";
import { contentWords, memoize, STOP_WORDS, words } from "./text.ts";

/** A span of a sentence: a name or a number, with its token position. */
export interface Span {
  text: string;
  numeric: boolean;
  /** The span starts the sentence (capitalized by position, not necessarily a name). */
  initial: boolean;
  /** Index of the span's first whitespace-separated token. */
  position: number;
}

/** Lowercase words that may sit inside a name ("Chief of Protocol", "Kiss and Tell"). */
const NAME_CONNECTORS: ReadonlySet<string> = new Set("of the de and von van la du del da".split(" "));

/** Words that open a question and are capitalized only because they come first ("Which", "Were", "In"). */
const QUESTION_OPENERS = new Set(
  ("which what who whom whose where when why how in on at of for from to by during after before is are was " +
    "were do does did can could has have had will would should name list").split(" "),
);

/** The whitespace-separated tokens of `text`, stripped of leading and trailing punctuation. */
export function tokensOf(text: string): string[] {
  return text.split(/\s+/).filter((token) => token !== "").map((token) =>
    token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}%]+$/gu, "")
  );
}

const NUMBER_TOKEN = /^\p{N}[\p{N},.]*%?$/u;

/**
 * Names and numbers of `sentence`, in order. With `dropOpener`, a capitalized first token that is a
 * question word, preposition or auxiliary ("Which", "In", "Were") does not start a name.
 */
export function spansOf(sentence: string, options: { dropOpener?: boolean } = {}): Span[] {
  const tokens = tokensOf(sentence);
  const spans: Span[] = [];
  let run: string[] = [];
  let runStart = 0;
  const flush = () => {
    while (run.length > 0 && NAME_CONNECTORS.has(run[run.length - 1].toLowerCase())) run.pop();
    if (run.length > 0) {
      spans.push({ text: run.join(" "), numeric: false, initial: runStart === 0, position: runStart });
    }
    run = [];
  };
  for (const [position, token] of tokens.entries()) {
    if (token === "") {
      flush();
      continue;
    }
    const opener = position === 0 && options.dropOpener === true && QUESTION_OPENERS.has(token.toLowerCase());
    if (NUMBER_TOKEN.test(token)) {
      flush();
      spans.push({ text: token, numeric: true, initial: position === 0, position });
    } else if (/^\p{Lu}/u.test(token) && !opener) {
      if (run.length === 0) runStart = position;
      run.push(token);
    } else if (run.length > 0 && NAME_CONNECTORS.has(token.toLowerCase())) {
      run.push(token);
    } else {
      flush();
    }
  }
  flush();
  return spans;
}

/** The value of a number span ("1,380" → 1380), or NaN. */
export function numberValue(text: string): number {
  return Number(text.replace(/,/g, "").replace(/%$/, "").replace(/\.$/, ""));
}

/** Whether a number looks like a year (four digits, 1000–2999). */
export function isYear(text: string): boolean {
  return /^\d{4}$/.test(text) && numberValue(text) >= 1000 && numberValue(text) <= 2999;
}

/** The names a question mentions (the opening question word excluded; "The Pelcri Wolves" kept whole). */
export function questionEntities(question: string): string[] {
  return spansOf(question, { dropOpener: true })
    .filter((span) => !span.numeric && contentWords(span.text).length > 0)
    .map((span) => span.text);
}

/** Whether a span has a content word outside `known` (so it says something the question does not). */
export function isFresh(span: Span, known: ReadonlySet<string>): boolean {
  return words(span.text).some((word) => !known.has(word) && !STOP_WORDS.has(word));
}

const wordSet = memoize((text): ReadonlySet<string> => new Set(words(text)));

/**
 * The sentences about `name`: those whose title and text hold every content word of the name, else those
 * holding its rarest content word ("Roslomir was born…" is about "Danzan Roslomir"). Source order.
 */
export function sentencesAbout(sentences: readonly ContextSentence[], name: string): ContextSentence[] {
  const wanted = [...new Set(contentWords(name))];
  if (wanted.length === 0) return [];
  // The words of each sentence's title and text (remembered, shared: never changed).
  const vocabularies = sentences.map((sentence) => wordSet(`${sentence.title ?? ""} ${sentence.text}`));
  const full = sentences.filter((_, index) => wanted.every((word) => vocabularies[index].has(word)));
  if (full.length > 0) return full;
  const frequency = (word: string) => vocabularies.filter((vocabulary) => vocabulary.has(word)).length;
  const present = wanted.filter((word) => frequency(word) > 0);
  if (present.length === 0) return [];
  const rarest = present.reduce((best, word) => (frequency(word) < frequency(best) ? word : best));
  return sentences.filter((_, index) => vocabularies[index].has(rarest));
}
