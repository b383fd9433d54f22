/**
 * LoCoMo's answer F1 (Maharana et al., ACL 2024; the rules of its `task_eval/evaluation.py`, written anew):
 * bag-of-Porter-stems F1; category 1 averages each comma-separated gold part's best F1, category 3 scores
 * against the gold text before its first `;`, category 5 scores 1 when the reply declines. The npm `stemmer`
 * (Porter 1980) differs from NLTK's on a few words (e.g. "dying"); both texts are stemmed alike.
 *
 * @example
 * ```ts
 * import { locomoF1 } from "./locomo_f1.ts";
 * locomoF1("She adopted a beagle", "beagle", 2); // 0.5
 * locomoF1("NOT IN CONTEXT", "", 5); // 1
 * ```
 *
 * @module
 */
import { stemmer } from "stemmer";

/** The answer the QA prompt asks for when the window lacks the fact. */
export const NOT_IN_CONTEXT = "NOT IN CONTEXT";

/** ASCII punctuation, as Python's `string.punctuation`. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
const DROPPED = /\b(?:a|an|the|and)\b/g;

/** LoCoMo's normalisation: commas, ASCII punctuation and `a`/`an`/`the`/`and` removed, lowercase. */
export function normalizeLocomo(text: string): string {
  const lowered = text.replaceAll(",", "").toLowerCase().replace(PUNCTUATION, "");
  return lowered.replace(DROPPED, " ").split(/\s+/).filter(Boolean).join(" ");
}

function stems(text: string): string[] {
  const words = normalizeLocomo(text);
  return words === "" ? [] : words.split(" ").map((word) => stemmer(word));
}

/** Bag-of-stems F1 of a prediction against a gold answer (0 when they share nothing). */
export function tokenF1(prediction: string, gold: string): number {
  const predicted = stems(prediction);
  const expected = stems(gold);
  const counts = new Map<string, number>();
  for (const stem of expected) counts.set(stem, (counts.get(stem) ?? 0) + 1);
  let same = 0;
  for (const stem of predicted) {
    const left = counts.get(stem) ?? 0;
    if (left > 0) {
      same++;
      counts.set(stem, left - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / predicted.length;
  const recall = same / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Category 1's score: each comma-separated gold part's best F1 against any predicted part, averaged. */
export function multiAnswerF1(prediction: string, gold: string): number {
  const predicted = prediction.split(",").map((part) => part.trim());
  const expected = gold.split(",").map((part) => part.trim());
  const best = expected.map((part) => Math.max(...predicted.map((guess) => tokenF1(guess, part))));
  return best.reduce((sum, value) => sum + value, 0) / best.length;
}

/** True when a reply declines (LoCoMo's phrases, or this program's {@link NOT_IN_CONTEXT}). */
export function declines(reply: string): boolean {
  const lowered = reply.toLowerCase();
  return lowered.includes("no information available") || lowered.includes("not mentioned") ||
    reply.trim().replace(/[.\s]+$/, "").toUpperCase() === NOT_IN_CONTEXT;
}

/** LoCoMo's score of `reply` to a question of `category` (1-5) whose gold answer is `answer`. */
export function locomoF1(reply: string, answer: string, category: number): number {
  switch (category) {
    case 1:
      return multiAnswerF1(reply, answer);
    case 3:
      return tokenF1(reply, answer.split(";")[0].trim());
    case 5:
      return declines(reply) ? 1 : 0;
    default:
      return tokenF1(reply, answer);
  }
}
