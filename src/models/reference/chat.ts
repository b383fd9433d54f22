/**
 * The reference model's chat behaviour, a pure function from request to reply. Rules in order: (a) read each
 * file the first user message lists through an offered file-reading tool (`tool_choice` may limit or force a
 * call); then by the last user message: (b) `"supporting_facts"`: extractive QA; (c) "summar": an extractive
 * summary; (d) `NOT IN CONTEXT`: needle QA, or one search through an offered search tool (a name holding
 * `search`, `grep` or `find`) with the question's key words, then an answer from everything; (e) "```js" or
 * "JavaScript": code; (f) else the two most relevant sentences. A reply over `max_tokens` is cut (`length`).
 * @module
 */
import { z } from "zod";
import type { ChatMessage, ToolCall, ToolDefinition } from "../messages.ts";
import { findReadTool, nextRead } from "./read_tool.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { bm25Scores, rankByRelevance } from "./bm25.ts";
import { contextTexts, findQuestion, lastUserIndex, listedFiles, parseContextSentences } from "./context.ts";
import { answerWithFacts } from "./extractive_qa.ts";
import { contentWords, coverage } from "./text.ts";
import { extractiveSummary } from "./summary.ts";

/** Summary budget when the request has no `max_tokens`. */
const DEFAULT_SUMMARY_TOKENS = 512;

/** `tool_choice` as OpenAI-compatible servers take it. */
export const ToolChoiceSchema = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1) }) }),
]);

type ToolChoice = z.infer<typeof ToolChoiceSchema>;

interface ReferenceChatInput {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  max_tokens?: number;
}

interface ReferenceChatReply {
  content: string | null;
  tool_calls?: ToolCall[];
  finish_reason: "stop" | "length" | "tool_calls";
  /** Which rule answered: "read_file", "search", "facts", "summary", "needle", "code" or "relevant". */
  rule: string;
}

/** The paths listed as `- path` (or `- path (article: Title)`) lines in the first user message, in order. */
export function listedPaths(messages: readonly ChatMessage[]): string[] {
  return listedFiles(messages).map((file) => file.path);
}

/** A call of `name`, its id numbered after every call in `messages`. */
function toolCall(messages: readonly ChatMessage[], name: string, args: Record<string, unknown>): ToolCall {
  const calls = messages.reduce((sum, message) => sum + (message.tool_calls ?? []).length, 0);
  return { id: `call_${calls + 1}`, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

const EMPTY_VALUES: Record<string, unknown> = {
  string: "",
  integer: 0,
  number: 0,
  boolean: false,
  array: [],
  object: {},
};

/** A tool's declared parameter `properties` and the names its `required` lists. */
function toolParameters(
  tool: ToolDefinition,
): { properties: Record<string, { type?: unknown }>; required: string[] } {
  const parameters = (tool.function.parameters ?? {}) as { properties?: unknown; required?: unknown };
  const required = Array.isArray(parameters.required) ? parameters.required as unknown[] : [];
  return {
    properties: (parameters.properties ?? {}) as Record<string, { type?: unknown }>,
    required: required.filter((name) => typeof name === "string"),
  };
}

/** Each required parameter of `tool` at its type's empty value. */
function emptyArguments(tool: ToolDefinition): Record<string, unknown> {
  const { properties, required } = toolParameters(tool);
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const type = properties[name]?.type;
    args[name] = typeof type === "string" && type in EMPTY_VALUES
      ? structuredClone(EMPTY_VALUES[type])
      : null;
  }
  return args;
}

/** The tool call of this turn: rule (a)'s next read, else the call `tool_choice` forces, else none. */
function chooseToolCall(input: ReferenceChatInput): ToolCall | undefined {
  const tools = input.tools ?? [];
  const choice = input.tool_choice ?? "auto";
  if (tools.length === 0) return undefined;
  // The reading tool rule (a) may use: none under "none", only the named tool under a named choice.
  const named = typeof choice === "object"
    ? tools.filter((t) => t.function.name === choice.function.name)
    : tools;
  const reader = choice === "none" ? undefined : findReadTool(named);
  const read = reader && nextRead(reader, listedPaths(input.messages), input.messages);
  if (reader !== undefined && read !== undefined) {
    return toolCall(input.messages, reader.name, read.arguments);
  }
  if (choice === "none" || choice === "auto") return undefined;
  const forced = typeof choice === "object"
    ? tools.find((tool) => tool.function.name === choice.function.name)
    : tools.find((tool) => tool.function.name === findReadTool(tools)?.name) ?? tools[0];
  if (forced === undefined) return undefined;
  const asReader = findReadTool([forced]);
  const first = listedPaths(input.messages)[0] ?? "";
  return toolCall(
    input.messages,
    forced.function.name,
    asReader !== undefined ? { [asReader.pathParam]: first } : emptyArguments(forced),
  );
}

/** How many relevant context lines the reply quotes. */
const QUOTED_LINES = 12;

const FENCE = /```(?:js|javascript)[^\n]*\n[\s\S]*?```/g;

const NEEDLE_THRESHOLD = 0.8;

/** The decline answer. */
export const NOT_IN_CONTEXT = "NOT IN CONTEXT";

/**
 * Rule (d): the context line holding the largest share of the question's content words (the earliest on ties)
 * answers with its text after the last " is ", unless the share is below {@link NEEDLE_THRESHOLD}: then
 * {@link NOT_IN_CONTEXT}.
 */
function answerNeedle(messages: readonly ChatMessage[]): string {
  const question = findQuestion(messages);
  let best = "";
  let bestScore = -1;
  for (const piece of contextTexts(messages)) {
    for (const raw of piece.text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "") continue;
      const score = coverage(question, line);
      if (score > bestScore) {
        best = line;
        bestScore = score;
      }
    }
  }
  if (bestScore < NEEDLE_THRESHOLD) return NOT_IN_CONTEXT;
  const cut = best.lastIndexOf(" is ");
  const answer = cut >= 0 ? best.slice(cut + 4) : best;
  return answer.trim().replace(/\.$/, "");
}

const SEARCH_NAME = /search|grep/i;
const FIND_NAME = /find/i;
const QUERY_NAMES = ["query", "pattern", "q", "keywords", "text"];

/** The search-like tool among `tools` and its query parameter (a query-like name, else a string one), or undefined. */
export function findSearchTool(
  tools: readonly ToolDefinition[],
): { name: string; queryParam: string } | undefined {
  for (const pattern of [SEARCH_NAME, FIND_NAME]) {
    for (const tool of tools) {
      if (!pattern.test(tool.function.name)) continue;
      const { properties, required } = toolParameters(tool);
      const all = Object.keys(properties).filter((name) => properties[name]?.type === "string");
      const queryParam = QUERY_NAMES.find((name) => all.includes(name)) ??
        required.find((name) => all.includes(name)) ?? all[0];
      if (queryParam !== undefined) return { name: tool.function.name, queryParam };
    }
  }
  return undefined;
}

/** The question's content words, each once, as the search query. */
export function searchQuery(messages: readonly ChatMessage[]): string {
  return [...new Set(contentWords(findQuestion(messages)))].join(" ");
}

/** True when a tool result already follows the last user message (the search of this question is done). */
export function searchedSinceQuestion(messages: readonly ChatMessage[]): boolean {
  const last = lastUserIndex(messages);
  return messages.slice(last + 1).some((message) => message.role === "tool");
}

/**
 * Rule (e): the context lines most relevant to the last user message quoted as `> ` lines, then every
 * `js`/`javascript` fenced block of the context verbatim, most relevant first.
 */
function answerWithCode(messages: readonly ChatMessage[]): string {
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

/** Rule (f): the two context sentences most relevant to the question (a system sentence only if it scores). */
function mostRelevantSentences(messages: readonly ChatMessage[]): string {
  const query = findQuestion(messages);
  const pieces = contextTexts(messages).flatMap((piece) =>
    parseContextSentences(piece.text, piece.fallbackTitle).map((sentence) => ({
      text: sentence.text,
      system: piece.system === true,
    }))
  ).filter((sentence) => sentence.text !== query);
  const sentences = pieces.map((piece) => piece.text);
  const scores = bm25Scores(query, sentences);
  return rankByRelevance(query, sentences).filter((index) => !pieces[index].system || scores[index] > 0)
    .slice(0, 2).map((index) => sentences[index]).join(" ");
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
  const call = chooseToolCall(input);
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
    const search = input.tool_choice === "none" ? undefined : findSearchTool(input.tools ?? []);
    if (content === NOT_IN_CONTEXT && search !== undefined && !searchedSinceQuestion(input.messages)) {
      const call = toolCall(input.messages, search.name, {
        [search.queryParam]: searchQuery(input.messages),
      });
      return { content: null, tool_calls: [call], finish_reason: "tool_calls", rule: "search" };
    }
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
