/**
 * Rule (e) of the reference chat model: the context lines most relevant to the last user message quoted as
 * `> ` lines, then every `js`/`javascript` fenced block of the context verbatim, most relevant first.
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import { rankByRelevance } from "./bm25.ts";
import { contextTexts, lastUserIndex } from "./context.ts";

/** How many relevant context lines the reply quotes. */
const QUOTED_LINES = 12;

const FENCE = /```(?:js|javascript)[^\n]*\n[\s\S]*?```/g;

/** Rule (e): quoted lines, then the context's JavaScript code blocks. */
export function answerWithCode(messages: readonly ChatMessage[]): string {
  const last = lastUserIndex(messages);
  const query = last >= 0 ? messages[last].content ?? "" : "";
  const blocks: string[] = [];
  const lines: string[] = [];
  for (const piece of contextTexts(messages)) {
    for (const match of piece.text.matchAll(FENCE)) blocks.push(match[0]);
    const prose = piece.text.replace(/```[\s\S]*?```/g, "\n");
    for (const line of prose.split(/\r?\n/)) if (line.trim() !== "") lines.push(line.trim());
  }
  const quoted = rankByRelevance(query, lines).slice(0, QUOTED_LINES).map((index) => `> ${lines[index]}`);
  const code = rankByRelevance(query, blocks).map((index) => blocks[index]);
  return [...quoted, ...code].join("\n\n");
}
