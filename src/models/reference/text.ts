/**
 * Word-level text helpers of the reference model: tokenizing into lowercase words, stop words, and
 * splitting prose into sentences. Everything here is pure and deterministic.
 *
 * @module
 */

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

/**
 * Splits prose into sentences: after `.`, `!` or `?` (optionally followed by a closing quote or bracket)
 * followed by whitespace, and at line breaks. Trimmed; empty pieces dropped.
 */
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
  let hits = 0;
  for (const word of wanted) if (present.has(word)) hits++;
  return hits / wanted.size;
}
