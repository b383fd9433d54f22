/**
 * Word-level text helpers of the reference model: lowercase words, stop words, stems, sentences; a bounded
 * memo for them (the model reads the same article sentences in many requests).
 * @module
 */
import { FifoMap } from "../../core/fifo_map.ts";

const MEMO_LIMIT = 20_000;

/** `fn` with its results remembered by key, at most {@link MEMO_LIMIT} of them (the oldest dropped first). */
export function memoize<T>(fn: (key: string) => T): (key: string) => T {
  const memo = new FifoMap<string, T>(MEMO_LIMIT);
  return (key) => {
    if (memo.has(key)) return memo.get(key) as T;
    const value = fn(key);
    memo.set(key, value);
    return value;
  };
}

/** English function words ignored when measuring relevance. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be been being but by can could did do does for from had has have he her his how i if in " +
    "into is it its me my no not of on or our she so than that the their them then there these they this to " +
    "was we were what when where which while who whom whose why will with would you your").split(" "),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase words (runs of letters and digits) of `text`, in order, stop words included. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Lowercase words of `text` without {@link STOP_WORDS}, in order. */
export function contentWords(text: string): string[] {
  return words(text).filter((word) => !STOP_WORDS.has(word));
}

const PLURAL = /(?:ies|es|s)$/;
const SUFFIXES = ["ings", "ing", "edly", "ed", "ers", "er", "est", "ly"];

/**
 * A light suffix stripper (not Porter's): "founder", "founded" and "founding" meet in "found", "bigger" and
 * "big" in "big". A plural and up to two suffixes go, leaving three letters or more; a doubled final
 * consonant is undoubled and a final "e" dropped. Words with digits or of three letters or fewer stay.
 */
export function stem(word: string): string {
  let stemmed = word.toLowerCase();
  if (stemmed.length <= 3 || /\p{N}/u.test(stemmed)) return stemmed;
  const strip = (suffix: string, replacement = "") => {
    if (stemmed.endsWith(suffix) && stemmed.length - suffix.length >= 3) {
      stemmed = stemmed.slice(0, stemmed.length - suffix.length) + replacement;
      return true;
    }
    return false;
  };
  const plural = PLURAL.exec(stemmed)?.[0];
  if (plural === "ies") strip("ies", "y");
  else if (plural === "es" && /(?:ss|sh|ch|x|z)es$/.test(stemmed)) strip("es");
  else if (plural !== undefined && !stemmed.endsWith("ss")) strip("s");
  for (let round = 0; round < 2; round++) {
    if (!SUFFIXES.some((suffix) => strip(suffix))) break;
  }
  if (/([^aeiouylsz])\1$/.test(stemmed) && stemmed.length > 3) stemmed = stemmed.slice(0, -1);
  if (stemmed.endsWith("e") && stemmed.length > 3) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/** {@link stem}s of the content words of `text`, in order (remembered: the array is shared and frozen). */
export const stemmedWords: (text: string) => readonly string[] = memoize((text) =>
  Object.freeze(contentWords(text).map(stem))
);

/** Splits prose into trimmed sentences: after `.`, `!` or `?` (and a closing quote) and whitespace, at line breaks. */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?]["')\]]?)\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** Share of the distinct content words of `query` that occur in `text` (0 when the query has none). */
export function coverage(query: string, text: string): number {
  const wanted = new Set(contentWords(query));
  if (wanted.size === 0) return 0;
  const present = new Set(contentWords(text));
  return [...wanted].filter((word) => present.has(word)).length / wanted.size;
}
