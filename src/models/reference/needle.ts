/**
 * Rule (d) of the reference chat model: needle question answering that may decline.
 *
 * Every non-empty line of the context is scored by the share of the question's distinct content words it
 * contains (see `coverage` in text.ts); the best line wins (ties: the earliest). Below
 * {@link NEEDLE_THRESHOLD} the reply is exactly `NOT IN CONTEXT`; otherwise it is the text after the last
 * " is " of that line (trailing period removed), or the whole line when it has no " is ".
 *
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import { contextTexts, findQuestion } from "./context.ts";
import { coverage } from "./text.ts";

/** Minimum share of the question's content words the best line must contain. */
export const NEEDLE_THRESHOLD = 0.8;

/** The decline answer. */
export const NOT_IN_CONTEXT = "NOT IN CONTEXT";

/** Rule (d): the needle answer or {@link NOT_IN_CONTEXT}. */
export function answerNeedle(messages: readonly ChatMessage[]): string {
  const question = findQuestion(messages);
  let best = "";
  let bestScore = -1;
  for (const piece of contextTexts(messages)) {
    for (const raw of piece.text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "") continue;
      const score = coverage(question, line);
      if (score > bestScore) {
        best = line;
        bestScore = score;
      }
    }
  }
  if (bestScore < NEEDLE_THRESHOLD) return NOT_IN_CONTEXT;
  const cut = best.lastIndexOf(" is ");
  const answer = cut >= 0 ? best.slice(cut + 4) : best;
  return answer.trim().replace(/\.$/, "");
}
