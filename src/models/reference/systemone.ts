/**
 * The reference model's System One behaviour: each question's noul is the BM25 relevance of its text to the
 * state (the request's questions as documents), squashed to [0, 1] by `s / (s + SQUASH_K)`.
 * @module
 */
import { bm25Scores } from "./bm25.ts";

/** The half-point of the squash: a BM25 score of SQUASH_K gives 0.5. */
const SQUASH_K = 2;

/** One noul per question, in question order, each in [0, 1]. */
export function referenceNouls(state: string, instructions: readonly string[]): number[] {
  return bm25Scores(state, instructions).map((score) => score / (score + SQUASH_K));
}
