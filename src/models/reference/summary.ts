/**
 * Rule (c) of the reference chat model: an extractive summary. The context's sentences (instructions and
 * framing lines left out, provenance kept as `[title, N] text`) are ranked by BM25 against the task and taken
 * greedily while the summary fits `maxTokens` and a quarter of the evidence.
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { rankByRelevance } from "./bm25.ts";
import { type ContextSentence, contextTexts, lastUserIndex, parseContextSentences } from "./context.ts";

/** Consecutive misfits after which selection stops. */
const SUMMARY_MAX_MISFITS = 8;

/** Lines that frame evidence rather than state it: a bare `<tag>`/`</tag>`, or a label ending in ":". */
export const FRAMING_LINE = /^(?:<\/?[\w-]+>|[^.!?]*:)$/;

/** Share of the evidence's tokens an extractive summary keeps at most. */
export const SUMMARY_RATIO = 0.25;

/** A summary line: `[title, N] text` when the sentence's provenance is known, else the sentence. */
export function summaryLine(sentence: ContextSentence): string {
  return sentence.title !== undefined && sentence.sentenceId !== undefined
    ? `[${sentence.title}, ${sentence.sentenceId}] ${sentence.text}`
    : sentence.text;
}

/** The extractive summary (duplicate sentences kept once). */
export function extractiveSummary(
  messages: readonly ChatMessage[],
  counter: TokenCounter,
  maxTokens: number,
): string {
  const last = lastUserIndex(messages);
  const seen = new Set<string>();
  const evidence: ContextSentence[] = [];
  const material = messages[0]?.role === "system" ? messages.slice(1) : messages;
  for (const piece of contextTexts(material)) {
    for (const sentence of parseContextSentences(piece.text, piece.fallbackTitle)) {
      if (seen.has(sentence.text)) continue;
      seen.add(sentence.text);
      evidence.push(sentence);
    }
  }
  const lastText = last >= 0 ? messages[last].content ?? "" : "";
  const kept = evidence.filter(({ text }) =>
    !(/summar/i.test(text) && lastText.includes(text)) && !FRAMING_LINE.test(text)
  );
  const usable = kept.map(summaryLine);
  const firstUser = messages.find((message) => message.role === "user")?.content ?? "";
  // Like a real summarizer it compresses rather than fill the space given; evidence measured as written.
  const target = Math.min(maxTokens, Math.ceil(SUMMARY_RATIO * counter.countText(usable.join("\n"))));
  const chosen = new Set<number>();
  let misfits = 0;
  const render = (indexes: Set<number>) =>
    [...indexes].sort((a, b) => a - b).map((index) => usable[index]).join("\n");
  const countChosen = lineCounts(usable, counter) ??
    ((indexes: Set<number>) => counter.countText(render(indexes)));
  for (const index of rankByRelevance(firstUser, kept.map((sentence) => sentence.text))) {
    chosen.add(index);
    if (countChosen(chosen, index) <= target) {
      misfits = 0;
      continue;
    }
    chosen.delete(index);
    countChosen(chosen, -1);
    if (++misfits >= SUMMARY_MAX_MISFITS) break;
  }
  return render(chosen);
}

/**
 * The count of the chosen lines joined by "\n", kept up to date as one index joins (`added`) or the last one
 * leaves (-1), exactly `countText` of the summary in linear time; null unless the counter adds up at line
 * breaks and every line begins with a non-whitespace character.
 */
function lineCounts(
  lines: readonly string[],
  counter: TokenCounter,
): ((chosen: Set<number>, added: number) => number) | null {
  if (counter.additiveAtLineBreaks !== true || !lines.every((line) => /^\P{White_Space}/u.test(line))) {
    return null;
  }
  const withBreak = (index: number) => counter.countText(lines[index] + "\n");
  let sum = 0;
  let last = -1;
  let lastAdded = -1;
  // The highest chosen index and, for when it leaves, the one before it.
  const highest: number[] = [];
  return (chosen, added) => {
    if (added >= 0) {
      sum += withBreak(added);
      lastAdded = added;
      if (added > last) {
        highest.push(added);
        last = added;
      }
    } else if (lastAdded >= 0 && !chosen.has(lastAdded)) {
      sum -= withBreak(lastAdded);
      if (lastAdded === last) {
        highest.pop();
        last = highest.length > 0 ? highest[highest.length - 1] : -1;
      }
      lastAdded = -1;
    }
    if (last < 0) return 0;
    return sum - withBreak(last) + counter.countText(lines[last]);
  };
}
