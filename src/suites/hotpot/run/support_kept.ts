/**
 * Two LLM-free measures of an answer input: "gold SP kept" (the share of gold supporting sentences present
 * verbatim in the text the model reads, JSON tool results decoded) and "over cap" (distinct contexts over the
 * ceiling).
 *
 * @module
 */
import type { ChatMessage } from "../../../models/messages.ts";
import { parseJson } from "../../../core/json_read.ts";

/** Every string value of a JSON value, depth first, in document order. */
function stringLeaves(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) { for (const item of value) stringLeaves(item, out); }
  else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) stringLeaves(item, out);
  }
}

/** The text of one message as the model reads it: a JSON tool result decoded to its string values. */
export function readableText(message: ChatMessage): string {
  const content = message.content ?? "";
  if (message.role !== "tool") return content;
  let json: unknown;
  try {
    json = parseJson(content);
  } catch (error) {
    if (error instanceof SyntaxError) return content;
    throw error;
  }
  if (typeof json !== "object" || json === null) return content;
  const parts: string[] = [];
  stringLeaves(json, parts);
  return parts.join("\n");
}

/** The articles a question's gold facts refer to. */
export interface SupportSource {
  context: readonly { title: string; sentences: readonly string[] }[];
}

/** Share of gold supporting sentences whose (trimmed) text appears verbatim in the readable text. */
export function supportSurvival(
  messages: readonly ChatMessage[],
  question: SupportSource,
  gold: { supporting_facts: readonly { title: string; sent_id: number }[] },
): number {
  if (gold.supporting_facts.length === 0) return 0;
  const text = messages.map(readableText).join("\n");
  let found = 0;
  for (const fact of gold.supporting_facts) {
    const sentence = question.context.find((a) => a.title === fact.title)?.sentences[fact.sent_id];
    if (sentence !== undefined && sentence.trim() !== "" && text.includes(sentence.trim())) found++;
  }
  return found / gold.supporting_facts.length;
}

/** Distinct answer inputs (by question and context hash) that are not within the ceiling. */
export function contextsOverCap(
  rows: readonly { question_id: string; context_hash: string | null; within_cap: boolean | null }[],
): number {
  const over = new Set<string>();
  for (const r of rows) if (r.within_cap === false) over.add(`${r.question_id}\u0000${r.context_hash}`);
  return over.size;
}
