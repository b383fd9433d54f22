/**
 * Budget helpers over exact token counts: BPE merges across pieces, so searches count whole prompts.
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import type { TokenCounter } from "./types.ts";

/** The reserve kept free under a ceiling by default (tokens). */
export const DEFAULT_RESERVE = 64;

export type Prompt = ChatMessage[] | { messages: ChatMessage[]; tools?: ToolDefinition[] };

/**
 * Exact token count of a prompt (chat template with generation prompt, then the tokenizer).
 * @example
 * ```ts ignore
 * countPrompt(await loadTokenCounter(), [{ role: "user", content: "Which river is longer?" }]);
 * ```
 */
export function countPrompt(counter: TokenCounter, prompt: Prompt): number {
  return Array.isArray(prompt)
    ? counter.countMessages(prompt)
    : counter.countMessages(prompt.messages, prompt.tools);
}

/** Whether the complete prompt counts at most `limit` tokens. */
export function fitsWithin(counter: TokenCounter, prompt: Prompt, limit: number): boolean {
  return countPrompt(counter, prompt) <= limit;
}

/** Tokens left for evidence under the ceiling and reserve (a planning figure: check the final prompt). */
export function evidenceSpace(
  counter: TokenCounter,
  build: (evidence: string) => Prompt,
  ceiling: number,
  reserve: number = DEFAULT_RESERVE,
): number {
  return ceiling - reserve - countPrompt(counter, build(""));
}

/** The outcome of a fit: what was chosen and the exact token count of the prompt built from it. */
export interface Fit<T> {
  chosen: T;
  /** Exact tokens of the prompt built from `chosen` (over `limit` only if even the empty choice is). */
  tokens: number;
}

/** The longest prefix of `units` whose prompt `build(prefix)` counts at most `limit` tokens (bisection). */
export function fitUnitsInOrder<T>(
  counter: TokenCounter,
  units: readonly T[],
  build: (chosen: T[]) => Prompt,
  limit: number,
): Fit<T[]> {
  return fitCountInOrder(units, (chosen) => countPrompt(counter, build(chosen)), limit);
}

/** {@link fitUnitsInOrder} with the exact token count of a prefix's prompt given as `countOf`. */
export function fitCountInOrder<T>(
  units: readonly T[],
  countOf: (chosen: T[]) => number,
  limit: number,
): Fit<T[]> {
  const tokensOf = new Map<number, number>();
  const count = (k: number) => {
    let tokens = tokensOf.get(k);
    if (tokens === undefined) {
      tokens = countOf(units.slice(0, k));
      tokensOf.set(k, tokens);
    }
    return tokens;
  };
  if (count(0) > limit) return { chosen: [], tokens: count(0) };
  // Bisection for the largest k with count(k) <= limit (count(0) is).
  let good = 0;
  let bad = units.length + 1;
  while (bad - good > 1) {
    const mid = good + Math.floor((bad - good) / 2);
    if (count(mid) <= limit) good = mid;
    else bad = mid;
  }
  return { chosen: units.slice(0, good), tokens: count(good) };
}

/** Where a text may be cut by {@link longestFittingPrefix}. */
export type CutBoundary = "sentence" | "word" | "grapheme";

/** Offsets (UTF-16) at which `text` may be cut at the given boundary, from 0 to `text.length`, ascending. */
export function cutPoints(text: string, boundary: CutBoundary): number[] {
  const segmenter = new Intl.Segmenter("en", { granularity: boundary });
  const points = [0];
  for (const segment of segmenter.segment(text)) {
    const end = segment.index + segment.segment.length;
    if (boundary === "word" && !(segment as Intl.SegmentData).isWordLike) continue;
    points.push(end);
  }
  if (points[points.length - 1] !== text.length) points.push(text.length);
  return points;
}

/** The longest prefix of `text`, cut at a `boundary`, whose prompt counts at most `limit` tokens (bisection). */
export function longestFittingPrefix(
  counter: TokenCounter,
  text: string,
  build: (prefix: string) => Prompt,
  limit: number,
  boundary: CutBoundary = "sentence",
): Fit<string> {
  const points = cutPoints(text, boundary);
  const fit = fitUnitsInOrder(
    counter,
    points.slice(1),
    (cuts) => build(text.slice(0, cuts.at(-1) ?? 0)),
    limit,
  );
  return { chosen: text.slice(0, fit.chosen.at(-1) ?? 0), tokens: fit.tokens };
}
