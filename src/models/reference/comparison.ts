/**
 * Comparison questions for the reference model's extractive reader (rule (b)).
 *
 * **Numeric comparisons.** Two forms are recognised:
 *
 * - a choice, "…, A or B?" (the two options after the last comma, or after a colon): "Which company was
 *   founded first, Corgalpel Textiles or Corbraval Motors?";
 * - a yes/no comparison, an auxiliary first ("Were", "Is", "Did", …) and the question's first and last
 *   names as A and B: "Were The Pelcri Wolves formed before The Valor Wolves?".
 *
 * The question must hold a direction word (see {@link DIRECTIONS}): "first", "earlier", "before", "older",
 * "shorter", "smaller", "fewer", … mean the smaller number wins; "later", "after", "newer", "younger",
 * "longer", "larger", "more", "bigger", "higher", "taller", … the larger. For "older"/"younger" the numbers
 * must be years (a birth year); with ages or other quantities the direction flips. The predicate = the
 * question's stemmed content words minus A's and B's words, the direction word and the answer type after
 * "which"/"what" ("company", "river"). For each of A and B the reader takes the context sentence about it
 * (title and text contain every word of the name) that has a number and the most predicate words (at least
 * one when there is a predicate; years only when the direction is about time, ages aside); ties: the sentence that names
 * it in its text, then source order. The number is the one nearest to a predicate word. The answer is A or
 * B exactly as written in the question, or "yes"/"no" (A wins → "yes"); equal numbers decide nothing. The
 * two sentences are the supporting facts.
 *
 * **"Both" questions.** "Are A and B both chemists?": for each of A and B the sentence about it with the
 * most of the attribute's words (ties as above); "yes" when both sentences hold every attribute word.
 *
 * Anything else, or a side with no usable sentence, gives `undefined` (the caller falls back).
 *
 * @module
 */
import type { ContextSentence } from "./context.ts";
import { nearestNumber, type ReaderAnswer, sentenceStems } from "./reader.ts";
import { isYear, numberValue, questionEntities, sentencesAbout, type Span } from "./spans.ts";
import { contentWords, stem, stemmedWords, words } from "./text.ts";

/** Which number wins a comparison. */
export type Direction = "smaller" | "larger";

/** Direction words and the number they favour (for time words: the year). */
export const DIRECTIONS: ReadonlyMap<string, Direction> = new Map([
  ...("first earlier earliest before older oldest sooner shorter shortest smaller smallest fewer fewest less " +
    "least lower lowest").split(" ").map((word) => [word, "smaller"] as const),
  ...("later latest last after newer newest younger youngest more most longer longest larger largest bigger " +
    "biggest higher highest taller tallest greater greatest heavier wider deeper").split(" ").map((word) =>
      [word, "larger"] as const
    ),
]);

const TIME_WORDS = new Set(
  "first earlier earliest before sooner later latest last after newer newest older oldest younger youngest"
    .split(" "),
);
const AGE_WORDS = new Set(["older", "oldest", "younger", "youngest"]);
const AUXILIARIES = new Set("is are was were do does did has have had".split(" "));

/** A parsed numeric comparison. */
export interface NumericComparison {
  kind: "choice" | "yesno";
  /** A and B, exactly as written in the question. */
  first: string;
  second: string;
  /** The direction word of the question. */
  word: string;
  direction: Direction;
  /** Stems a supporting sentence should contain. */
  predicate: string[];
}

function stripQuestion(question: string): string {
  return question.trim().replace(/[?.!\s]+$/, "");
}

/** The noun right after "which"/"what" ("company" in "Which company was…"), if any. */
export function typeNoun(question: string): string | undefined {
  const match = /\b(?:which|what)\s+(\p{L}+)/iu.exec(question);
  if (match === null) return undefined;
  const noun = match[1].toLowerCase();
  return AUXILIARIES.has(noun) || contentWords(noun).length === 0 ? undefined : noun;
}

function predicateOf(head: string, names: string[], word: string): string[] {
  const excluded = new Set([...names.flatMap(stemmedWords), stem(word)]);
  const noun = typeNoun(head);
  if (noun !== undefined) excluded.add(stem(noun));
  return [...new Set(stemmedWords(head))].filter((term) => !excluded.has(term));
}

function directionWord(text: string): string | undefined {
  return words(text).find((word) => DIRECTIONS.has(word));
}

/** Parses a numeric comparison question (see the module documentation), or undefined. */
export function parseComparison(question: string): NumericComparison | undefined {
  const text = stripQuestion(question);
  for (const separator of [",", ":"]) {
    const cut = text.lastIndexOf(separator);
    if (cut < 0) continue;
    const options = text.slice(cut + 1).split(/\s+or\s+/i).map((option) => option.trim());
    const head = text.slice(0, cut);
    const word = directionWord(head);
    if (options.length !== 2 || options.some((option) => contentWords(option).length === 0) || !word) continue;
    const [first, second] = options;
    return {
      kind: "choice",
      first,
      second,
      word,
      direction: DIRECTIONS.get(word)!,
      predicate: predicateOf(head, [first, second], word),
    };
  }
  if (!AUXILIARIES.has(words(text)[0] ?? "")) return undefined;
  const word = directionWord(text);
  const names = questionEntities(text);
  if (!word || names.length < 2) return undefined;
  const first = names[0];
  const second = names[names.length - 1];
  return {
    kind: "yesno",
    first,
    second,
    word,
    direction: DIRECTIONS.get(word)!,
    predicate: predicateOf(text, [first, second], word),
  };
}

/** Whether the sentence's own text (not only its title) contains every content word of `name`. */
function namesInText(sentence: ContextSentence, name: string): boolean {
  const present = new Set(words(sentence.text));
  return contentWords(name).every((word) => present.has(word));
}

/** The best of `sentences` by `score` (higher first), then naming `name` in the text, then source order. */
function bestSentence<T extends { sentence: ContextSentence; score: number }>(
  scored: T[],
  name: string,
): T | undefined {
  let best: T | undefined;
  for (const item of scored) {
    if (
      best === undefined || item.score > best.score ||
      (item.score === best.score && namesInText(item.sentence, name) && !namesInText(best.sentence, name))
    ) {
      best = item;
    }
  }
  return best;
}

interface Measured {
  sentence: ContextSentence;
  score: number;
  number: Span;
}

function measure(
  comparison: NumericComparison,
  candidates: readonly ContextSentence[],
  name: string,
): Measured | undefined {
  const predicate = new Set(comparison.predicate);
  const askedNumbers = new Set(words(`${comparison.first} ${comparison.second}`));
  const timely = TIME_WORDS.has(comparison.word) && !AGE_WORDS.has(comparison.word);
  const scored: Measured[] = [];
  for (const sentence of sentencesAbout(candidates, name)) {
    const stems = sentenceStems(sentence);
    const score = [...predicate].filter((term) => stems.has(term)).length;
    if (predicate.size > 0 && score === 0) continue;
    const number = nearestNumber(
      sentence.text,
      predicate,
      (span) => !askedNumbers.has(span.text.toLowerCase()) && (!timely || isYear(span.text)),
    );
    if (number !== undefined) scored.push({ sentence, score, number });
  }
  return bestSentence(scored, name);
}

/** The answer to a numeric comparison from `candidates`, or undefined when it cannot be decided. */
export function answerNumericComparison(
  comparison: NumericComparison,
  candidates: readonly ContextSentence[],
): ReaderAnswer | undefined {
  const a = measure(comparison, candidates, comparison.first);
  const b = measure(comparison, candidates, comparison.second);
  if (a === undefined || b === undefined) return undefined;
  const va = numberValue(a.number.text);
  const vb = numberValue(b.number.text);
  if (!Number.isFinite(va) || !Number.isFinite(vb)) return undefined;
  let direction = comparison.direction;
  if (AGE_WORDS.has(comparison.word) && !(isYear(a.number.text) && isYear(b.number.text))) {
    direction = direction === "smaller" ? "larger" : "smaller";
  }
  const facts = [a.sentence, b.sentence];
  if (va === vb) return comparison.kind === "yesno" ? { answer: "no", facts } : undefined;
  const firstWins = direction === "smaller" ? va < vb : va > vb;
  if (comparison.kind === "yesno") return { answer: firstWins ? "yes" : "no", facts };
  return { answer: firstWins ? comparison.first : comparison.second, facts };
}

/** A parsed "Are A and B both X?" question. */
export interface BothQuestion {
  first: string;
  second: string;
  /** Stems of X. */
  attribute: string[];
}

const BOTH = /^(?:are|were|is|was)\s+(.+?)\s+and\s+(.+?)\s+both\s+(.+)$/i;

/** Parses "Are A and B both X?" (see the module documentation), or undefined. */
export function parseBothQuestion(question: string): BothQuestion | undefined {
  const match = BOTH.exec(stripQuestion(question));
  if (match === null) return undefined;
  const attribute = [...new Set(stemmedWords(match[3]))];
  if (attribute.length === 0) return undefined;
  return { first: match[1].trim(), second: match[2].trim(), attribute };
}

/** The answer to a "both" question from `candidates`, or undefined when a side has no sentence. */
export function answerBothQuestion(
  question: BothQuestion,
  candidates: readonly ContextSentence[],
): ReaderAnswer | undefined {
  const side = (name: string) =>
    bestSentence(
      sentencesAbout(candidates, name).map((sentence) => {
        const stems = sentenceStems(sentence);
        return { sentence, score: question.attribute.filter((term) => stems.has(term)).length };
      }),
      name,
    );
  const a = side(question.first);
  const b = side(question.second);
  if (a === undefined || b === undefined) return undefined;
  const all = question.attribute.length;
  return { answer: a.score === all && b.score === all ? "yes" : "no", facts: [a.sentence, b.sentence] };
}

/** A comparison question's answer (numeric, then "both"), or undefined when the question is neither. */
export function answerComparison(
  question: string,
  candidates: readonly ContextSentence[],
): ReaderAnswer | undefined {
  const numeric = parseComparison(question);
  if (numeric !== undefined) return answerNumericComparison(numeric, candidates);
  const both = parseBothQuestion(question);
  if (both !== undefined) return answerBothQuestion(both, candidates);
  return undefined;
}
