/**
 * The checks a collected trajectory must pass before evaluation (else the question is invalid, with reasons):
 * a non-empty first `system` message (the agent's own, recorded, never compared); calls and results paired;
 * workspace files unchanged (SHA-256; without hashes "not verifiable", never passed); each article line shown
 * unaltered through the file-reading tool (its framing removed, below), missing lines named with their cause.
 * The trajectory's shape is here too: fixed system prompt and task, the agent's final answer kept aside.
 * @module
 */
import { createHash } from "node:crypto";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import { fileText, type WorkspaceFile, workspaceFiles } from "../workspace.ts";
import { parseJson } from "../../../core/json_read.ts";
import type { CallRecord } from "../../../models/types.ts";

/** The system prompt of every collected trajectory. */
export const SYSTEM_PROMPT =
  "You are a careful research assistant working in a workspace of text files. Use the read_file tool to " +
  "read files; each result shows the file's lines as 'LINE_NUMBER|TEXT'. Base your answers only on what " +
  "the files say.";

/** The user task of a question: answer it from the files, which are listed as `- path` lines. */
export function taskMessage(
  question: string,
  files: readonly Pick<WorkspaceFile, "path" | "title">[],
): string {
  return [
    "Answer the following question using the files in the workspace. Read every file completely with " +
    "read_file before you answer.",
    "",
    `Question: ${question}`,
    "",
    "Files:",
    ...files.map((f) => `- ${f.path} (article: ${f.title})`),
  ].join("\n");
}

/** The opening messages of a trajectory: system prompt and user task. */
export function openingMessages(
  question: string,
  files: readonly Pick<WorkspaceFile, "path" | "title">[],
): ChatMessage[] {
  return [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: taskMessage(question, files) },
  ];
}

/**
 * A collected trajectory of one question: its messages without the final answer (kept aside, or null), the
 * workspace's SHA-256 per path before and after (null: "files unchanged" not verifiable), and for live
 * collections why the agent stopped, its model error and the provider calls made.
 */
export interface Collection {
  question_id: string;
  source: "scripted" | "live" | "hermes" | "agent";
  messages: ChatMessage[];
  final_answer: string | null;
  hashes_before: Record<string, string> | null;
  hashes_after: Record<string, string> | null;
  stop_reason?: "answered" | "step_cap" | "model_error";
  error?: string;
  calls?: CallRecord[];
}

/** One file line a read showed, framing removed. */
export interface ShownLine {
  line: number;
  text: string;
  /** The tool cut this line (Hermes' `... [truncated]`); `text` is what was left of it. */
  cut: boolean;
}

/** What one read showed. */
export interface UnframedRead {
  path: string;
  lines: ShownLine[];
  /** The tool said more lines follow (a page); `continueAt` is the line its hint names, when it names one. */
  more?: { continueAt?: number };
  error?: string;
}

/** How one known tool frames its reads. */
export interface ReadToolFraming {
  names: readonly string[];
  source: string;
  /** The path a call reads, from its arguments; undefined when the call reads no file. */
  path(args: Record<string, unknown>): string | undefined;
  unframe(result: string, args: Record<string, unknown>): Omit<UnframedRead, "path">;
}

const PATH_NAMES = ["path", "file_path", "filepath", "file", "filename", "file_name", "target_file", "uri"];
const HERMES_CUT = "... [truncated]";
const HINT_OFFSET = /\boffset\s*[=:]\s*(\d+)/i;

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value as Json : undefined;
}

function parseObject(text: string): Json | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    return asObject(parseJson(text));
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** The page facts of a JSON result: `truncated` and an `offset=K` hint (in `hint` or `_hint`). */
function pageFacts(json: Json): Pick<UnframedRead, "more"> {
  const hint = [json.hint, json._hint].find((value) => typeof value === "string" && HINT_OFFSET.test(value));
  const continueAt = typeof hint === "string" ? Number(HINT_OFFSET.exec(hint)![1]) : undefined;
  if (json.truncated === true || continueAt !== undefined) {
    return { more: continueAt !== undefined ? { continueAt } : {} };
  }
  return {};
}

/** Drops a page's last line when it is an empty numbered line right after the one before it (the newline). */
function dropTrailingEmpty(lines: ShownLine[]): ShownLine[] {
  const last = lines[lines.length - 1];
  const before = lines[lines.length - 2];
  if (last === undefined || last.text !== "") return lines;
  if (before === undefined || last.line === before.line + 1) return lines.slice(0, -1);
  return lines;
}

/** Hermes' `%6d|TEXT` lines of a content string (other lines ignored), cut lines marked. */
function hermesLines(content: string): ShownLine[] {
  const lines: ShownLine[] = [];
  for (const raw of content.split("\n")) {
    const match = /^ *(\d+)\|(.*)$/s.exec(raw);
    if (match === null) continue;
    const text = match[2];
    const cut = text.endsWith(HERMES_CUT);
    lines.push({ line: Number(match[1]), text: cut ? text.slice(0, -HERMES_CUT.length) : text, cut });
  }
  return dropTrailingEmpty(lines);
}

const HERMES_READ_FILE: ReadToolFraming = {
  names: ["read_file"],
  source: "Hermes Agent 0.14 tools/file_tools.py read_file; compaction-bench read_file.ts",
  path: (args) => typeof args.path === "string" ? args.path : undefined,
  unframe(result) {
    const json = parseObject(result);
    if (json === undefined) return { lines: hermesLines(result) };
    if (typeof json.error === "string") return { lines: [], error: json.error };
    const content = typeof json.content === "string" ? json.content : "";
    return { lines: hermesLines(content), ...pageFacts(json) };
  },
};

/** The table of known file-reading tools and their framing. */
export const KNOWN_READ_TOOLS: readonly ReadToolFraming[] = [HERMES_READ_FILE];

const GENERIC_NUMBERED = /^ *(\d+)(?:\||→|\t)(.*)$/s;

function genericFirstLine(args: Json): number {
  const offset = [args.offset, args.start_line].find((value) => typeof value === "number");
  return typeof offset === "number" && Number.isInteger(offset) && offset >= 1 ? offset : 1;
}

/** The framing of a tool not in the table (see the module documentation). */
export const GENERIC_READ_TOOL: ReadToolFraming = {
  names: [],
  source: "generic: a path-like argument, numbered or plain lines",
  path(args) {
    const name = PATH_NAMES.find((candidate) => typeof args[candidate] === "string");
    return name === undefined ? undefined : args[name] as string;
  },
  unframe(result, args) {
    const json = parseObject(result);
    let text = result;
    let facts: Pick<UnframedRead, "more"> = {};
    if (json !== undefined) {
      if (typeof json.error === "string") return { lines: [], error: json.error };
      const field = [json.content, json.text, json.output].find((value) => typeof value === "string");
      text = typeof field === "string" ? field : "";
      facts = pageFacts(json);
    }
    const raw = text.split("\n");
    const numbered = raw.map((line) => GENERIC_NUMBERED.exec(line));
    if (numbered.some((match) => match !== null)) {
      const lines = numbered.flatMap((match) =>
        match === null ? [] : [{ line: Number(match[1]), text: match[2], cut: false }]
      );
      return { lines: dropTrailingEmpty(lines), ...facts };
    }
    if (raw.length > 0 && raw[raw.length - 1] === "") raw.pop();
    const first = genericFirstLine(args);
    return { lines: raw.map((line, i) => ({ line: first + i, text: line, cut: false })), ...facts };
  },
};

const READING_NAME = /read|view|open|cat/i;

/** The framing of the tool called `name`: its table entry, else the generic one for a reading name, else none. */
export function framingOf(name: string): ReadToolFraming | undefined {
  return KNOWN_READ_TOOLS.find((tool) => tool.names.includes(name)) ??
    (READING_NAME.test(name) ? GENERIC_READ_TOOL : undefined);
}

/** What one tool call showed of a file; undefined when it reads no file (no reading tool, path or object). */
export function unframeRead(name: string, argumentsJson: string, result: string): UnframedRead | undefined {
  const args = parseObject(argumentsJson);
  if (args === undefined) return undefined;
  const framing = framingOf(name);
  if (framing === undefined) return undefined;
  const path = framing.path(args);
  if (path === undefined) return undefined;
  return { path, ...framing.unframe(result, args) };
}

/** The verdict on one collection; "files unchanged" shown by hashes around it, or not at all. */
export type CollectionCheck =
  & ({ valid: true } | { valid: false; reason: string })
  & { files_unchanged: "verified" | "not verifiable" };

/** A trajectory's first message when that is a non-empty system message, with its SHA-256 (hex, UTF-8). */
export function initialSystemPrompt(
  messages: readonly ChatMessage[],
): { text: string; sha256: string } | null {
  const first = messages[0];
  if (first === undefined || first.role !== "system" || !first.content) return null;
  return { text: first.content, sha256: createHash("sha256").update(first.content, "utf8").digest("hex") };
}

/** "3", "3-5" style ranges of sorted 1-based line numbers. */
function lineRanges(lines: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j] + 1) j++;
    parts.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return parts.join(", ");
}

/** The workspace file a tool path names (exact relative path, or an absolute/longer path ending in it). */
function matchFile(files: readonly WorkspaceFile[], path: string): WorkspaceFile | undefined {
  const clean = path.replace(/^\.\//, "");
  return files.find((f) => clean === f.path || clean.endsWith(`/${f.path}`));
}

/** The way a shown line differs from the file's line: cut by the tool, redacted, or otherwise altered. */
function lineProblem(shown: ShownLine, original: string): string {
  if (shown.cut || (shown.text.length < original.length && original.startsWith(shown.text))) {
    return "cut short (truncated read)";
  }
  return "redacted or altered";
}

/**
 * Why `file` was not read whole and unaltered through `reads` (session order): lines that differ, pages out
 * of order, lines never shown, with the cause the session shows (missing page, truncated read, failed read).
 */
function fileReadReasons(
  file: WorkspaceFile,
  reads: readonly { id: string; read: UnframedRead }[],
): string[] {
  const reasons: string[] = [];
  const seen = new Set<number>();
  let cut = false;
  const failed: string[] = [];
  const promised: { id: string; line: number }[] = [];
  for (const { id, read } of reads) {
    if (read.error !== undefined) failed.push(`read ${id} failed: ${read.error.slice(0, 120)}`);
    let previous: number | undefined;
    for (const shown of read.lines) {
      if (previous !== undefined && shown.line !== previous + 1) {
        reasons.push(
          `read ${id} of ${file.path} shows line ${shown.line} after line ${previous} (lines out of order)`,
        );
      }
      previous = shown.line;
      if (shown.line === file.lines.length + 1 && shown.text === "") continue; // the newline after the last line
      if (shown.line < 1 || shown.line > file.lines.length) {
        const beyond = `beyond the file's ${file.lines.length} lines`;
        reasons.push(`read ${id} of ${file.path} shows line ${shown.line}, ${beyond}`);
      } else if (shown.cut || file.lines[shown.line - 1] !== shown.text) {
        const problem = lineProblem(shown, file.lines[shown.line - 1]);
        if (problem.startsWith("cut")) cut = true;
        reasons.push(`read ${id} of ${file.path} shows line ${shown.line} ${problem}`);
      } else {
        seen.add(shown.line);
      }
    }
    if (read.more !== undefined) {
      const last = read.lines.length > 0 ? read.lines[read.lines.length - 1].line : undefined;
      const line = read.more.continueAt ?? (last !== undefined ? last + 1 : undefined);
      if (line !== undefined) promised.push({ id, line });
    }
  }
  const missing = file.lines.map((_, i) => i + 1).filter((n) => !seen.has(n));
  if (missing.length > 0) {
    const missed = new Set(missing);
    const causes: string[] = [];
    const page = promised.find((p) => missed.has(p.line));
    if (page !== undefined) {
      causes.push(
        `missing page: read ${page.id} said more follows from line ${page.line}, and no read showed it`,
      );
    }
    if (cut) causes.push("truncated read: the tool cut a line");
    causes.push(...failed);
    if (causes.length === 0 && reads.length === 0) causes.push("never read");
    const how = causes.length > 0 ? ` (${causes.join("; ")})` : "";
    const which = `${missing.length === 1 ? "line" : "lines"} ${lineRanges(missing)}`;
    reasons.push(`article "${file.title}" (${file.path}) not read whole: ${which} never shown${how}`);
  }
  return reasons;
}

/** Checks a collection of `record` (see the module documentation for the rules). */
export function checkCollection(collection: Collection, record: HotpotRecord): CollectionCheck {
  const reasons: string[] = [];
  const messages = collection.messages;

  if (initialSystemPrompt(messages) === null) {
    reasons.push("initial system prompt missing (the first message must be a non-empty system message)");
  }

  const calls = new Map<string, { name: string; arguments: string; results: string[] }>();
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        if (calls.has(call.id)) reasons.push(`tool call id ${call.id} used twice (message ${index})`);
        else calls.set(call.id, { ...call.function, results: [] });
      }
    } else if (message.role === "tool") {
      const call = message.tool_call_id === undefined ? undefined : calls.get(message.tool_call_id);
      const id = message.tool_call_id ?? "no id";
      if (call === undefined) reasons.push(`tool result at message ${index} answers no earlier call (${id})`);
      else call.results.push(message.content ?? "");
    }
  }
  for (const [id, call] of calls) {
    if (call.results.length === 0) reasons.push(`tool call ${id} has no result`);
    if (call.results.length > 1) reasons.push(`tool call ${id} has ${call.results.length} results`);
  }

  const files = workspaceFiles(record.context);
  const { hashes_before: hashesBefore, hashes_after: hashesAfter } = collection;
  const filesUnchanged = hashesBefore !== null && hashesAfter !== null ? "verified" : "not verifiable";
  for (const f of files) {
    const expected = createHash("sha256").update(fileText(f.lines), "utf8").digest("hex");
    if (hashesBefore !== null && hashesBefore[f.path] !== expected) {
      reasons.push(`workspace file ${f.path} did not match its article before collection`);
    }
    if (hashesBefore !== null && hashesAfter !== null && hashesAfter[f.path] !== hashesBefore[f.path]) {
      reasons.push(`workspace file ${f.path} changed during collection`);
    }
  }

  const reads = new Map<string, { id: string; read: UnframedRead }[]>(files.map((f) => [f.path, []]));
  for (const [id, call] of calls) {
    if (call.results.length !== 1) continue;
    const read = unframeRead(call.name, call.arguments, call.results[0]);
    const file = read === undefined ? undefined : matchFile(files, read.path);
    if (read === undefined || file === undefined) continue;
    reads.get(file.path)!.push({ id, read });
  }
  for (const f of files) reasons.push(...fileReadReasons(f, reads.get(f.path)!));
  return reasons.length === 0
    ? { valid: true, files_unchanged: filesUnchanged }
    : { valid: false, reason: reasons.join("; "), files_unchanged: filesUnchanged };
}
