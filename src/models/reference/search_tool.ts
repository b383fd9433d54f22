/**
 * The reference model's recall rule: offered a search-like tool (its name holds `search`, `grep` or `find`)
 * for a question it cannot answer, it searches once with the question's key words ("What is the deploy token
 * for shard 3?" → `deploy token shard 3`), then answers from everything.
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../messages.ts";
import { findQuestion, lastUserIndex } from "./context.ts";
import { contentWords } from "./text.ts";

interface SearchTool {
  name: string;
  queryParam: string;
}

const SEARCH_NAME = /search|grep/i;
const FIND_NAME = /find/i;
const QUERY_NAMES = ["query", "pattern", "q", "keywords", "text"];

function stringParams(tool: ToolDefinition): { all: string[]; required: string[] } {
  const parameters = (tool.function.parameters ?? {}) as { properties?: unknown; required?: unknown };
  const properties = (parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const all = Object.keys(properties).filter((name) => properties[name]?.type === "string");
  const required = Array.isArray(parameters.required)
    ? (parameters.required as unknown[]).filter((name): name is string =>
      typeof name === "string" && all.includes(name)
    )
    : [];
  return { all, required };
}

/** The search-like tool among `tools` and its query parameter (a query-like name, else a string one), or undefined. */
export function findSearchTool(tools: readonly ToolDefinition[]): SearchTool | undefined {
  for (const pattern of [SEARCH_NAME, FIND_NAME]) {
    for (const tool of tools) {
      if (!pattern.test(tool.function.name)) continue;
      const { all, required } = stringParams(tool);
      const queryParam = QUERY_NAMES.find((name) => all.includes(name)) ?? required[0] ?? all[0];
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
