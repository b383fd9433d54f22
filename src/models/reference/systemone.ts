/**
 * The reference model's System One behaviour: the noul of each question is the lexical relevance of that
 * question's instruction text to the state (BM25, documents = all questions' instruction texts of the
 * request, query = the state), squashed to [0, 1] by `s / (s + SQUASH_K)`. It never sees gold labels.
 *
 * @module
 */
import { bm25Scores } from "./bm25.ts";

/** The half-point of the squash: a BM25 score of SQUASH_K gives 0.5. */
export const SQUASH_K = 2;

/** One noul per question, in question order, each in [0, 1]. */
export function referenceNouls(state: string, instructions: readonly string[]): number[] {
  return bm25Scores(state, instructions).map((score) => score / (score + SQUASH_K));
}
