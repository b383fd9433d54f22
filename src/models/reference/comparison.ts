/**
 * Comparison questions for the reference model's extractive reader (rule (b)): "…, A or B?" and yes/no
 * comparisons decided by the number nearest a predicate word in each side's best sentence, the direction word
 * saying which wins ("older"/"younger" flip for ages); "Are A and B both X?" by every attribute word. The two
 * sentences are the supporting facts; anything else gives `undefined`.
 * @module
 */
import type { ContextSentence } from "./context.ts";
import { nearestNumber, type ReaderAnswer, sentenceStems, typeNoun } from "./reader.ts";
import { isYear, numberValue, questionEntities, sentencesAbout, type Span } from "./spans.ts";
import { contentWords, stem, stemmedWords, words } from "./text.ts";

type Direction = "smaller" | "larger";

/** Direction words and the number they favour (for time words: the year). */
const DIRECTIONS: ReadonlyMap<string, Direction> = new Map([
  ...("first earlier earliest before older oldest sooner shorter shortest smaller smallest fewer fewest " +
    "less least lower lowest").split(" ").map((word) => [word, "smaller"] as const),
  ...("later latest last after newer newest younger youngest more most longer longest larger largest " +
    "bigger biggest higher highest taller tallest greater greatest heavier wider deeper").split(" ")
    .map((word) => [word, "larger"] as const),
]);

const TIME_WORDS = new Set(
  "first earlier earliest before sooner later latest last after newer newest older oldest younger youngest"
    .split(" "),
);
const AGE_WORDS = new Set(["older", "oldest", "younger", "youngest"]);
const AUXILIARIES = new Set("is are was were do does did has have had".split(" "));

/** A parsed numeric comparison. */
interface NumericComparison {
  kind: "choice" | "yesno";
  /** A and B, exactly as written in the question. */
  first: string;
  second: string;
  /** The direction word of the question. */
  word: string;
  direction: Direction;
  /** Stems a supporting sentence should contain. */
  predicate: string[];
  /** Stems naming what is measured, any one counting as a predicate word ("long" for "shorter"). */
  measure: string[];
}

function stripQuestion(question: string): string {
  return question.trim().replace(/[?.!\s]+$/, "");
}

/** Direction words that only order things; the others ("longer", "taller") also name what is measured. */
const ORDER_WORDS = new Set([...TIME_WORDS, "more", "most", "fewer", "fewest", "less", "least"]);

/** The usual opposite of a measuring direction word, so "shorter" finds "969 kilometres long". */
const OPPOSITES: ReadonlyMap<string, string> = new Map([
  ...[["shorter", "longer"], ["shortest", "longest"], ["smaller", "larger"]] as const,
  ...[["smallest", "largest"], ["lower", "higher"], ["lowest", "highest"]] as const,
]);

function directionWord(text: string): string | undefined {
  return words(text).find((word) => DIRECTIONS.has(word));
}

function comparison(
  kind: NumericComparison["kind"],
  first: string,
  second: string,
  word: string,
  head: string,
): NumericComparison {
  // The predicate: the head's stems but the names', the direction word's and the type noun's.
  const excluded = new Set([...[first, second].flatMap(stemmedWords), stem(word)]);
  const noun = typeNoun(head);
  if (noun !== undefined) excluded.add(stem(noun));
  const predicate = [...new Set(stemmedWords(head))].filter((term) => !excluded.has(term));
  const opposite = OPPOSITES.get(word) ?? [...OPPOSITES].find(([, other]) => other === word)?.[0];
  const measure = ORDER_WORDS.has(word)
    ? []
    : [...new Set([word, ...(opposite === undefined ? [] : [opposite])].map(stem))];
  return { kind, first, second, word, direction: DIRECTIONS.get(word)!, predicate, measure };
}

/** Parses a numeric comparison question, or undefined. */
export function parseComparison(question: string): NumericComparison | undefined {
  const text = stripQuestion(question);
  for (const separator of [",", ":"]) {
    const cut = text.lastIndexOf(separator);
    if (cut < 0) continue;
    const options = text.slice(cut + 1).split(/\s+or\s+/i).map((option) => option.trim());
    const head = text.slice(0, cut);
    const word = directionWord(head);
    if (options.length !== 2 || options.some((option) => contentWords(option).length === 0) || !word) {
      continue;
    }
    return comparison("choice", options[0], options[1], word, head);
  }
  if (!AUXILIARIES.has(words(text)[0] ?? "")) return undefined;
  const word = directionWord(text);
  const names = questionEntities(text);
  if (!word || names.length < 2) return undefined;
  return comparison("yesno", names[0], names[names.length - 1], word, text);
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
  const measured = comparison.measure;
  const focus = new Set([...predicate, ...measured]);
  const askedNumbers = new Set(words(`${comparison.first} ${comparison.second}`));
  const timely = TIME_WORDS.has(comparison.word) && !AGE_WORDS.has(comparison.word);
  const scored: Measured[] = [];
  for (const sentence of sentencesAbout(candidates, name)) {
    const stems = sentenceStems(sentence);
    const score = [...predicate].filter((term) => stems.has(term)).length +
      (measured.some((term) => stems.has(term)) ? 1 : 0);
    if (focus.size > 0 && score === 0) continue;
    const number = nearestNumber(
      sentence.text,
      focus,
      (span) => !askedNumbers.has(span.text.toLowerCase()) && (!timely || isYear(span.text)),
    );
    if (number !== undefined) scored.push({ sentence, score, number });
  }
  return bestSentence(scored, name);
}

/** The answer to a numeric comparison from `candidates`, or undefined when it cannot be decided. */
function answerNumericComparison(
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

/** A parsed "Are A and B both X?" question (`attribute`: the stems of X). */
interface BothQuestion {
  first: string;
  second: string;
  attribute: string[];
}

const BOTH = /^(?:are|were|is|was)\s+(.+?)\s+and\s+(.+?)\s+both\s+(.+)$/i;

function parseBothQuestion(question: string): BothQuestion | undefined {
  const match = BOTH.exec(stripQuestion(question));
  if (match === null) return undefined;
  const attribute = [...new Set(stemmedWords(match[3]))];
  if (attribute.length === 0) return undefined;
  return { first: match[1].trim(), second: match[2].trim(), attribute };
}

/** The answer to a "both" question from `candidates`, or undefined when a side has no sentence. */
function answerBothQuestion(
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
