/**
 * Rule (d) of the reference chat model: needle QA that may decline. The context line holding the largest share
 * of the question's content words (the earliest on ties) answers with its text after the last " is ", unless
 * the share is below {@link NEEDLE_THRESHOLD}: then `NOT IN CONTEXT`.
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import { contextTexts, findQuestion } from "./context.ts";
import { coverage } from "./text.ts";

const NEEDLE_THRESHOLD = 0.8;

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
