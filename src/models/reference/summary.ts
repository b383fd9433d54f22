/**
 * Rule (c) of the reference chat model: an extractive summary within a token budget.
 *
 * Evidence = the sentences of the context (see context.ts), minus instruction sentences of the last user
 * message that mention "summar". They are ranked by BM25 relevance to the task (the first user message)
 * and taken greedily in that order; a sentence joins when the summary (chosen sentences in source order,
 * one per line) still counts at most the target: `maxTokens`, or a quarter of the evidence's tokens
 * ({@link SUMMARY_RATIO}) when that is less; after 8 sentences in a row that do not fit, selection stops.
 * Duplicate sentences are kept once.
 *
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { rankByRelevance } from "./bm25.ts";
import { contextTexts, lastUserIndex, parseContextSentences } from "./context.ts";

/** Consecutive misfits after which selection stops. */
export const SUMMARY_MAX_MISFITS = 8;

/** Share of the evidence's tokens an extractive summary keeps at most. */
export const SUMMARY_RATIO = 0.25;

/** The extractive summary (see the module documentation). */
export function extractiveSummary(
  messages: readonly ChatMessage[],
  counter: TokenCounter,
  maxTokens: number,
): string {
  const last = lastUserIndex(messages);
  const seen = new Set<string>();
  const evidence: string[] = [];
  for (const piece of contextTexts(messages)) {
    for (const sentence of parseContextSentences(piece.text, piece.fallbackTitle)) {
      if (seen.has(sentence.text)) continue;
      seen.add(sentence.text);
      evidence.push(sentence.text);
    }
  }
  const lastText = last >= 0 ? messages[last].content ?? "" : "";
  const usable = evidence.filter((sentence) => !(/summar/i.test(sentence) && lastText.includes(sentence)));
  const firstUser = messages.find((message) => message.role === "user")?.content ?? "";
  // An extractive summary keeps about a quarter of the evidence (never more than max_tokens): like a real
  // summarizer it compresses, rather than filling whatever space it is given.
  const target = Math.min(maxTokens, Math.ceil(SUMMARY_RATIO * counter.countText(usable.join("\n"))));
  const chosen = new Set<number>();
  let misfits = 0;
  const render = (indexes: Set<number>) =>
    [...indexes].sort((a, b) => a - b).map((index) => usable[index]).join("\n");
  for (const index of rankByRelevance(firstUser, usable)) {
    chosen.add(index);
    if (counter.countText(render(chosen)) <= target) {
      misfits = 0;
      continue;
    }
    chosen.delete(index);
    if (++misfits >= SUMMARY_MAX_MISFITS) break;
  }
  return render(chosen);
}
