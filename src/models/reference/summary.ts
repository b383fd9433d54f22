/**
 * Rule (c) of the reference chat model: an extractive summary within a token budget.
 *
 * Evidence is the context's sentences (context.ts) minus the request's instructions (its leading system
 * message, the last user message's "summar" sentences) and framing lines ({@link FRAMING_LINE}); each written
 * `[title, N] text` when its provenance is known, so a summary still supports citations.
 *
 * Lines are ranked by BM25 against the task (the first user message) and taken greedily while the summary
 * (chosen lines in source order) counts at most `maxTokens` or a quarter ({@link SUMMARY_RATIO}) of all
 * evidence, whichever is less; 8 misfits in a row stop it. Duplicate sentences are kept once.
 *
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { rankByRelevance } from "./bm25.ts";
import { type ContextSentence, contextTexts, lastUserIndex, parseContextSentences } from "./context.ts";

/** Consecutive misfits after which selection stops. */
export const SUMMARY_MAX_MISFITS = 8;

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

/** The extractive summary (see the module documentation). */
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
  // An extractive summary keeps about a quarter of the evidence (never more than max_tokens): like a real
  // summarizer it compresses, rather than filling whatever space it is given. Evidence is measured as the
  // summary writes it (with provenance), so the share of sentences kept does not depend on the line form.
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
 * Where the counter adds up at line breaks and every line begins with a non-whitespace character, the count of
 * the chosen lines joined by "\n", kept up to date as one index joins (`added`) or the last one added leaves
 * (`added` = -1): each line costs its count with its line break, and the last line (the highest index) its
 * count without one. Exactly `countText` of the rendered summary, in time linear in the lines instead of
 * counting the whole summary again for every candidate. Else null.
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
