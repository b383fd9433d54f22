/**
 * How the reference model finds and pages a file-reading tool, whatever it is called: a path-like string as
 * its only required parameter, an offset-like integer to page (0- or 1-based as its schema says). A read is
 * never repeated and a file is read at most {@link MAX_PAGES_PER_FILE} times, so no tool keeps it reading.
 * @module
 */
import { type ChatMessage, type ToolCall, toolCallArguments, type ToolDefinition } from "../messages.ts";

/** A file-reading tool as the reference model uses it. */
export interface ReadTool {
  name: string;
  pathParam: string;
  offsetParam?: string;
  /** 0: the offset counts lines to skip; 1: it is the first line to show. */
  offsetBase: 0 | 1;
}

const PATH_NAMES = ["path", "file_path", "filepath", "file", "filename", "file_name", "target_file", "uri"];
const OFFSET_NAMES = ["offset", "start_line", "line_offset", "from_line", "start", "from", "line"];
const ZERO_BASED = /\b(?:0-based|0-indexed|zero-based|zero-indexed|skip)/i;

type JsonSchema = Record<string, unknown>;

function asSchema(value: unknown): JsonSchema | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as JsonSchema
    : undefined;
}

/** Whether `value` is a JSON schema whose `type` is (or lists) one of `wanted`. */
function typeIs(value: unknown, ...wanted: string[]): boolean {
  const type = asSchema(value)?.type;
  return wanted.some((name) => type === name || (Array.isArray(type) && type.includes(name)));
}

/** One tool definition as a reading tool (a bare `read_file` is `read_file(path)`), or undefined. */
function asReadTool(tool: ToolDefinition): ReadTool | undefined {
  const parameters = asSchema(tool.function.parameters);
  const properties = asSchema(parameters?.properties);
  if (properties === undefined || Object.keys(properties).length === 0) {
    return tool.function.name === "read_file"
      ? { name: "read_file", pathParam: "path", offsetBase: 1 }
      : undefined;
  }
  const required = Array.isArray(parameters?.required) ? parameters.required : [];
  const pathParam = PATH_NAMES.find((name) => typeIs(properties[name], "string"));
  if (pathParam === undefined) return undefined;
  if (required.some((name) => name !== pathParam)) return undefined;
  const offsetParam = OFFSET_NAMES.find((name) => typeIs(properties[name], "integer", "number"));
  if (offsetParam === undefined) return { name: tool.function.name, pathParam, offsetBase: 1 };
  const offsetSchema = properties[offsetParam] as JsonSchema;
  const description = typeof offsetSchema.description === "string" ? offsetSchema.description : "";
  const zeroBased = offsetSchema.minimum === 0 || ZERO_BASED.test(description);
  return { name: tool.function.name, pathParam, offsetParam, offsetBase: zeroBased ? 0 : 1 };
}

/** The file-reading tool among `tools` (names with "read" first), or undefined. */
export function findReadTool(tools: readonly ToolDefinition[] | undefined): ReadTool | undefined {
  const found = (tools ?? []).map(asReadTool).filter((read) => read !== undefined);
  return found.find((tool) => /read/i.test(tool.name)) ?? found[0];
}

/** The path a call of `tool` asked for, or undefined. */
function readCallPath(tool: ReadTool, call: ToolCall): string | undefined {
  if (call.function.name !== tool.name) return undefined;
  const path = toolCallArguments(call.function.arguments)?.[tool.pathParam];
  return typeof path === "string" ? path : undefined;
}

/** The first line a call of `tool` asked for (1-based), from its offset argument (1 when it has none). */
function firstLineAsked(tool: ReadTool, call: ToolCall): number {
  if (tool.offsetParam === undefined) return 1;
  const offset = toolCallArguments(call.function.arguments)?.[tool.offsetParam];
  if (typeof offset !== "number" || !Number.isFinite(offset)) return 1;
  return Math.max(1, Math.trunc(offset) + (tool.offsetBase === 0 ? 1 : 0));
}

/** What one read's result says about the file (`more` undefined: it does not say; lines 1-based). */
interface PageOutcome {
  lastLine?: number;
  more?: boolean;
  /** The line the result's hint says to continue at. */
  continueAt?: number;
  /** The result is a JSON object with `error`. */
  error: boolean;
}

const MAX_PAGES_PER_FILE = 200;

const NUMBERED_LINE = /^ *(\d+)\|/;
const HINT_OFFSET = /\boffset\s*[=:]\s*(\d+)/i;

/** Reads one tool result of a read that began at `firstLine` (1-based). */
export function pageOutcome(result: string, firstLine: number): PageOutcome {
  let text = result;
  let more: boolean | undefined;
  let hint: string | undefined;
  let error = false;
  const parsed = result.trimStart().startsWith("{") ? toolCallArguments(result) : null;
  if (parsed !== null) {
    error = "error" in parsed;
    text = typeof parsed.content === "string" ? parsed.content : "";
    if (typeof parsed.truncated === "boolean") more = parsed.truncated;
    hint = typeof parsed.hint === "string" ? parsed.hint : undefined;
  }
  const lastLine = lastShownLine(text, firstLine);
  const total = parsed?.total_lines;
  if (more === undefined && typeof total === "number" && lastLine !== undefined) more = total > lastLine;
  if (hint === undefined) hint = HINT_OFFSET.test(text) ? text : undefined;
  const match = hint !== undefined ? HINT_OFFSET.exec(hint) : null;
  return {
    ...(lastLine !== undefined ? { lastLine } : {}),
    ...(more !== undefined ? { more } : {}),
    ...(match !== null ? { continueAt: Number(match[1]) } : {}),
    error,
  };
}

/** The last line a page shows: its highest `N|` number (a final empty numbered line aside), else by count. */
function lastShownLine(text: string, firstLine: number): number | undefined {
  const lines = text.split("\n");
  while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
  const numbered = lines.map((line) => NUMBERED_LINE.exec(line)).filter((match) => match !== null);
  if (numbered.length > 0) {
    const ends = /^ *\d+\|\s*$/.test(lines[lines.length - 1]) ? numbered.slice(0, -1) : numbered;
    return ends.length === 0 ? undefined : Math.max(...ends.map((match) => Number(match[1])));
  }
  return lines.length === 0 ? undefined : firstLine + lines.length - 1;
}

/**
 * The next read of `files` through `tool` given the conversation so far, or undefined: files in order; a file
 * is done when the tool cannot page, the result is an error, shows nothing new or says it is complete.
 */
export function nextRead(
  tool: ReadTool,
  files: readonly string[],
  messages: readonly ChatMessage[],
): { path: string; arguments: Record<string, unknown> } | undefined {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "tool" && message.tool_call_id !== undefined) {
      results.set(message.tool_call_id, message.content ?? "");
    }
  }
  const reads = new Map<string, { firstLine: number; result?: string }[]>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      const path = readCallPath(tool, call);
      if (path === undefined) continue;
      const list = reads.get(path) ?? [];
      list.push({ firstLine: firstLineAsked(tool, call), result: results.get(call.id) });
      reads.set(path, list);
    }
  }
  for (const path of files) {
    const made = reads.get(path);
    if (made === undefined) return { path, arguments: { [tool.pathParam]: path } };
    if (tool.offsetParam === undefined) continue;
    const latest = made[made.length - 1];
    if (latest.result === undefined) continue;
    const page = pageOutcome(latest.result, latest.firstLine);
    if (page.error || page.lastLine === undefined || page.lastLine < latest.firstLine) continue;
    if (page.more === false) continue;
    const next = page.continueAt ?? page.lastLine + 1;
    if (next <= latest.firstLine || made.some((read) => read.firstLine === next)) continue;
    if (made.length >= MAX_PAGES_PER_FILE) continue;
    if (made.slice(0, -1).some((read) => read.result === latest.result)) continue;
    const offset = tool.offsetBase === 0 ? next - 1 : next;
    return { path, arguments: { [tool.pathParam]: path, [tool.offsetParam]: offset } };
  }
  return undefined;
}
