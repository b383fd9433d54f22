/**
 * Okapi BM25 over content words, the reference model's one notion of relevance: k1 = 1.2, b = 0.75,
 * idf = ln(1 + (N − n + 0.5) / (n + 0.5)), which is never negative.
 * @module
 */
import { contentWords } from "./text.ts";

/** BM25 parameters: term saturation and length normalization. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** BM25 score of every document for `query`, in document order; `tokenize` gives a text's terms. */
export function bm25Scores(
  query: string,
  documents: readonly string[],
  tokenize: (text: string) => readonly string[] = contentWords,
): number[] {
  const docs = documents.map(tokenize);
  const count = docs.length;
  if (count === 0) return [];
  const averageLength = docs.reduce((sum, doc) => sum + doc.length, 0) / count || 1;
  const documentFrequency = new Map<string, number>();
  const termFrequencies = docs.map((doc) => {
    const frequencies = new Map<string, number>();
    for (const word of doc) frequencies.set(word, (frequencies.get(word) ?? 0) + 1);
    for (const word of frequencies.keys()) {
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
    return frequencies;
  });
  const queryTerms = [...new Set(tokenize(query))];
  const queryOrder = new Map(queryTerms.map((term, position) => [term, position]));
  return termFrequencies.map((frequencies, index) => {
    // The terms both hold, in query order (so scores are the same to the last bit), found from the smaller side.
    let shared: readonly string[];
    if (frequencies.size < queryTerms.length) {
      const positions: number[] = [];
      for (const term of frequencies.keys()) {
        const position = queryOrder.get(term);
        if (position !== undefined) positions.push(position);
      }
      shared = positions.sort((a, b) => a - b).map((position) => queryTerms[position]);
    } else shared = queryTerms;
    let score = 0;
    for (const term of shared) {
      const tf = frequencies.get(term);
      if (tf === undefined) continue;
      const n = documentFrequency.get(term)!;
      const idf = Math.log(1 + (count - n + 0.5) / (n + 0.5));
      const norm = tf + BM25_K1 * (1 - BM25_B + BM25_B * docs[index].length / averageLength);
      score += idf * (tf * (BM25_K1 + 1)) / norm;
    }
    return score;
  });
}

/** Indexes of `documents` by descending BM25 score for `query`, ties by document order. */
export function rankByRelevance(
  query: string,
  documents: readonly string[],
  tokenize: (text: string) => readonly string[] = contentWords,
): number[] {
  const scores = bm25Scores(query, documents, tokenize);
  return scores.map((_, index) => index).sort((a, b) => scores[b] - scores[a] || a - b);
}
