/**
 * The reference model's recall rule: offered a search-like tool while answering a question it cannot answer
 * from what it was given (needle QA would say `NOT IN CONTEXT`), it searches once per turn with the question's
 * key words; once the search's results are in (tool results after the question), it answers from everything.
 *
 * A tool is search-like when its name holds `search`, `grep` or `find` (the first such tool offered wins,
 * `search`/`grep` before `find`) and it takes a string parameter; the parameter used is the one named
 * `query`, `pattern`, `q`, `keywords` or `text`, else its first required string parameter, else its first
 * string parameter. The key words are the question's content words (stop words out, lowercase, in order,
 * each once), joined by spaces: e.g. "What is the deploy token for shard 3?" → `deploy token shard 3`.
 * Deterministic: the same request always gives the same call.
 *
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../messages.ts";
import { findQuestion, lastUserIndex } from "./context.ts";
import { contentWords } from "./text.ts";

/** A search-like tool and the parameter that takes the query. */
export interface SearchTool {
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

/** The search-like tool among `tools` (see the module notes), or undefined. */
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

/** The question's key words, as the search query (see the module notes). */
export function searchQuery(messages: readonly ChatMessage[]): string {
  return [...new Set(contentWords(findQuestion(messages)))].join(" ");
}

/** True when a tool result already follows the last user message (the search of this question is done). */
export function searchedSinceQuestion(messages: readonly ChatMessage[]): boolean {
  const last = lastUserIndex(messages);
  return messages.slice(last + 1).some((message) => message.role === "tool");
}
