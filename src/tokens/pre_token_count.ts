/**
 * Counting by pre-token: where exact (see `lineBreakSplitter`), a text counts as the sum of its pre-tokens,
 * each count cached under its text.
 * @module
 */
import type { Tokenizer } from "@huggingface/tokenizers";
import { ShortTextCounts } from "./text_cache.ts";

/** At most this many pre-token counts are cached per tokenizer (oldest dropped). */
export const PRE_TOKEN_CACHE_LIMIT = 100_000;

/** The cached pre-tokens total at most this many UTF-16 units per tokenizer. */
export const PRE_TOKEN_CACHE_CHARS = 1024 * 1024;

/** Pre-tokens longer than this many UTF-16 units are not cached. */
export const PRE_TOKEN_CACHE_LENGTH = 64;

/** Counts a text that holds no added token, by pre-token. */
export type PreTokenCounter = (text: string) => number;

const NON_ASCII = /[\u0080-\uffff]/;

interface PreTokenizerStep {
  pre_tokenize(text: string | string[], options: { section_index: number }): string[];
  config?: { type?: unknown; invert?: unknown; behavior?: unknown };
  pattern?: unknown;
}

type Cut = (text: string) => string[];

/** The cut a `Split` step makes of one text (the non-empty matches where they cover it, else the library's). */
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

/** A {@link PreTokenCounter} over `tokenizer`, or null where counting by pre-token is not known exact. */
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
  // Keyed by a copy of the characters (no string of the line is kept); NFC leaves ASCII as it is.
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
