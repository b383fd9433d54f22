/**
 * The reference model's chat behaviour: a pure function from a chat request to a reply. Rules, checked in
 * this order (the "last user message" decides (b)–(f)):
 *
 * - (a) the request offers a `read_file` tool and the first user message lists files as `- path` lines:
 *   call `read_file` with `{"path": ...}` for the first listed path no earlier `read_file` call asked for;
 *   once all are read, fall through to the rules below.
 * - (b) the last user message contains `"supporting_facts"` (a JSON answer is asked for): extractive QA,
 *   reply `{"answer": ..., "supporting_facts": [[title, id], ...]}` (see extractive_qa.ts).
 * - (c) it contains "summar" (any case): an extractive summary within `max_tokens`, 512 when absent
 *   (see summary.ts).
 * - (d) it contains `NOT IN CONTEXT`: needle QA that may decline (see needle.ts).
 * - (e) it contains "```js" or "JavaScript": quoted lines and the context's code blocks (see
 *   code_answer.ts).
 * - (f) otherwise: the two context sentences most relevant (BM25) to the question (see `findQuestion`),
 *   best first, the question itself excluded.
 *
 * Any text reply longer than `max_tokens` is cut to the longest prefix that fits (finish reason `length`),
 * as a real model stops at its limit.
 *
 * @module
 */
import type { ChatMessage, ToolCall, ToolDefinition } from "../messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { rankByRelevance } from "./bm25.ts";
import { answerWithCode } from "./code_answer.ts";
import {
  contextTexts,
  findQuestion,
  lastUserIndex,
  listedFiles,
  parseContextSentences,
  readFilePath,
} from "./context.ts";
import { answerWithFacts } from "./extractive_qa.ts";
import { answerNeedle } from "./needle.ts";
import { extractiveSummary } from "./summary.ts";

/** Summary budget when the request has no `max_tokens`. */
export const DEFAULT_SUMMARY_TOKENS = 512;

/** What the reference model needs from a request. */
export interface ReferenceChatInput {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  max_tokens?: number;
}

/** The reference model's reply. */
export interface ReferenceChatReply {
  content: string | null;
  tool_calls?: ToolCall[];
  finish_reason: "stop" | "length" | "tool_calls";
  /** Which rule answered: "read_file", "facts", "summary", "needle", "code" or "relevant". */
  rule: string;
}

/** The paths listed as `- path` (or `- path (article: Title)`) lines in the first user message, in order. */
export function listedPaths(messages: readonly ChatMessage[]): string[] {
  return listedFiles(messages).map((file) => file.path);
}

function nextFileToRead(input: ReferenceChatInput): ToolCall | undefined {
  if (!(input.tools ?? []).some((tool) => tool.function.name === "read_file")) return undefined;
  const read = new Set<string>();
  let calls = 0;
  for (const message of input.messages) {
    for (const call of message.tool_calls ?? []) {
      calls++;
      const path = call.function.name === "read_file" ? readFilePath(call.function.arguments) : undefined;
      if (path !== undefined) read.add(path);
    }
  }
  const path = listedPaths(input.messages).find((candidate) => !read.has(candidate));
  if (path === undefined) return undefined;
  return {
    id: `call_${calls + 1}`,
    type: "function",
    function: { name: "read_file", arguments: JSON.stringify({ path }) },
  };
}

function mostRelevantSentences(messages: readonly ChatMessage[]): string {
  const query = findQuestion(messages);
  const sentences = contextTexts(messages).flatMap((piece) =>
    parseContextSentences(piece.text, piece.fallbackTitle).map((sentence) => sentence.text)
  ).filter((sentence) => sentence !== query);
  return rankByRelevance(query, sentences).slice(0, 2).map((index) => sentences[index]).join(" ");
}

/** The longest prefix of `text` (whole code points) that counts at most `maxTokens`. */
export function fitToTokens(text: string, counter: TokenCounter, maxTokens: number): string {
  if (counter.countText(text) <= maxTokens) return text;
  const points = Array.from(text);
  let low = 0;
  let high = points.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (counter.countText(points.slice(0, middle).join("")) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return points.slice(0, low).join("");
}

/** The reference model's reply to a chat request (see the module documentation). */
export function referenceReply(input: ReferenceChatInput, counter: TokenCounter): ReferenceChatReply {
  const call = nextFileToRead(input);
  if (call !== undefined) {
    return { content: null, tool_calls: [call], finish_reason: "tool_calls", rule: "read_file" };
  }
  const last = lastUserIndex(input.messages);
  const ask = last >= 0 ? input.messages[last].content ?? "" : "";
  let content: string;
  let rule: string;
  if (ask.includes('"supporting_facts"')) {
    content = JSON.stringify(answerWithFacts(input.messages));
    rule = "facts";
  } else if (/summar/i.test(ask)) {
    content = extractiveSummary(input.messages, counter, input.max_tokens ?? DEFAULT_SUMMARY_TOKENS);
    rule = "summary";
  } else if (ask.includes("NOT IN CONTEXT")) {
    content = answerNeedle(input.messages);
    rule = "needle";
  } else if (ask.includes("```js") || ask.includes("JavaScript")) {
    content = answerWithCode(input.messages);
    rule = "code";
  } else {
    content = mostRelevantSentences(input.messages);
    rule = "relevant";
  }
  if (input.max_tokens !== undefined) {
    const fitted = fitToTokens(content, counter, input.max_tokens);
    if (fitted !== content) return { content: fitted, finish_reason: "length", rule };
  }
  return { content, finish_reason: "stop", rule };
}
