/**
 * Counting by pre-token. A BPE model encodes each pre-token on its own, so where the normalizer and
 * pre-tokenizer meet `lineBreakSplitter`'s conditions (no normalizer or NFC; `Split` steps over hand-checked
 * patterns, then `ByteLevel` without a prefix space) and the model is a BPE without dropout, a text without
 * added tokens counts as the sum of its pre-tokens. The text is cut by the library's own normalizer and
 * `Split` steps (the cut `encode` makes; `stepCut` uses `String.prototype.match` where it gives the same
 * pieces) and each pre-token's count is cached under its text: natural text repeats its words.
 *
 * The parity tests hold the counts to Python `transformers`. Where a library version does not expose these
 * stages as expected, texts are encoded whole.
 *
 * @module
 */
import type { Tokenizer } from "@huggingface/tokenizers";
import { ShortTextCounts } from "./count_table.ts";

/** At most this many pre-token counts are cached per tokenizer; past it the oldest are dropped. */
export const PRE_TOKEN_CACHE_LIMIT = 100_000;

/** The cached pre-tokens total at most this many UTF-16 units per tokenizer. */
export const PRE_TOKEN_CACHE_CHARS = 1024 * 1024;

/** Pre-tokens longer than this many UTF-16 units are not cached (rare: long runs of one class of character). */
export const PRE_TOKEN_CACHE_LENGTH = 64;

/** Counts a text that holds no added token, by pre-token. */
export type PreTokenCounter = (text: string) => number;

/** A UTF-16 unit outside ASCII (a surrogate of an astral character included). */
const NON_ASCII = /[\u0080-\uffff]/;

/** A pre-tokenizer step of the library. */
interface PreTokenizerStep {
  pre_tokenize(text: string | string[], options: { section_index: number }): string[];
  /** A `Split` step's configuration and compiled pattern (the library's own fields). */
  config?: { type?: unknown; invert?: unknown; behavior?: unknown };
  pattern?: unknown;
}

/** A text cut into pieces: the pieces, in order. */
type Cut = (text: string) => string[];

/**
 * The cut a `Split` step makes of one text, without the library's match objects where that gives the same
 * pieces: a `Split` that keeps its matches in place ("isolated", not inverted) cuts a text into its pattern's
 * matches and the text between them, empty pieces dropped (the library's `regex_split`). Where the matches
 * cover the whole text (their lengths add up to it), the pieces are exactly the non-empty matches, which
 * `String.prototype.match` returns as strings alone; otherwise the step's own cut is used. Any other step
 * is cut by the library.
 */
function stepCut(step: PreTokenizerStep, options: { section_index: number }): Cut {
  const pattern = step.pattern;
  const config = step.config;
  const own: Cut = (text) => step.pre_tokenize(text, options);
  if (
    config?.type !== "Split" || config.invert || !(pattern instanceof RegExp) || !pattern.global ||
    (typeof config.behavior === "string" && config.behavior.toLowerCase() === "removed")
  ) {
    return own;
  }
  return (text) => {
    const matches = text.match(pattern);
    if (matches === null) return own(text);
    let covered = 0;
    let empty = false;
    for (const match of matches) {
      covered += match.length;
      if (match.length === 0) empty = true;
    }
    if (covered !== text.length) return own(text);
    return empty ? matches.filter((match) => match.length > 0) : matches;
  };
}

/** The parts of the library's `Tokenizer` used here (not in its published types). */
interface TokenizerStages {
  normalizer: ((text: string) => string) | null;
  /** A `Sequence` pre-tokenizer: its steps. */
  pre_tokenizer: { tokenizers?: unknown } | null;
  model: ((tokens: string[]) => string[]) | null;
  remove_space?: unknown;
  do_lowercase_and_remove_accent?: unknown;
}

/** What of `tokenizer.json`'s model decides whether per-pre-token counting is exact. */
export interface ModelOutline {
  type?: unknown;
  dropout?: unknown;
}

/**
 * A {@link PreTokenCounter} over `tokenizer`, or null where counting by pre-token is not known to be exact.
 * `lineSafe` says that the normalizer and pre-tokenizer meet `lineBreakSplitter`'s conditions (its result is
 * not null); `model` is `tokenizer.json`'s model. `countPreToken` counts the tokens of one pre-token, given
 * its text before the byte-level mapping (default: the length of what the tokenizer's model encodes its
 * byte-level form to; `load.ts` gives the count from prebuilt merges, `bpe_count.ts`, which maps the bytes
 * itself: `lineSafe` means the byte-level step adds no prefix space and uses no regex of its own).
 */
export function preTokenCounter(
  tokenizer: Tokenizer,
  lineSafe: boolean,
  model: ModelOutline | undefined,
  countPreToken?: (preToken: string) => number,
): PreTokenCounter | null {
  if (!lineSafe || model?.type !== "BPE" || (model.dropout !== null && model.dropout !== undefined)) {
    return null;
  }
  const stages = tokenizer as unknown as TokenizerStages;
  const normalize = stages.normalizer;
  const steps = stages.pre_tokenizer?.tokenizers;
  const encode = stages.model;
  if (
    (normalize !== null && typeof normalize !== "function") || !Array.isArray(steps) || steps.length < 2 ||
    !steps.every((step) => typeof (step as Partial<PreTokenizerStep>)?.pre_tokenize === "function") ||
    typeof encode !== "function" || stages.remove_space === true || stages.do_lowercase_and_remove_accent
  ) {
    return null;
  }
  // `lineSafe` checked that the last step is the byte-level mapping and the others are the splits.
  const splits = steps.slice(0, -1) as PreTokenizerStep[];
  const byteLevel = steps[steps.length - 1] as PreTokenizerStep;
  const options = { section_index: 0 };
  const cuts = splits.map((split) => stepCut(split, options));
  // Keyed by a copy of the characters (count_table.ts): no string of the line is kept.
  // NFC leaves ASCII text as it is (no ASCII character decomposes or composes): such a line skips it.
  const nfc = normalize !== null && (normalize as unknown as { form?: unknown }).form === "NFC" &&
    (normalize as unknown as { config?: { type?: unknown } }).config?.type === "NFC";
  const counts = new ShortTextCounts(PRE_TOKEN_CACHE_LIMIT, PRE_TOKEN_CACHE_CHARS, PRE_TOKEN_CACHE_LENGTH);
  const countOf = countPreToken ??
    ((preToken: string) => encode(byteLevel.pre_tokenize(preToken, options)).length);
  return (text) => {
    let pieces = [normalize === null || (nfc && !NON_ASCII.test(text)) ? text : normalize(text)];
    for (const cut of cuts) pieces = pieces.length === 1 ? cut(pieces[0]) : pieces.flatMap(cut);
    let total = 0;
    for (const piece of pieces) {
      let count = counts.get(piece);
      if (count < 0) {
        count = countOf(piece);
        counts.set(piece, count);
      }
      total += count;
    }
    return total;
  };
}
