/**
 * What a file-reading tool call showed of its file, the tool's framing removed, so the collection checks can
 * tell whether every article line reached the agent unaltered. Known tools ({@link KNOWN_READ_TOOLS}: Hermes
 * 0.14's `read_file`, `%6d|TEXT` lines, page-end line, `... [truncated]`, `offset=K` hints); any other tool
 * whose name says it reads is read generically (`N|`, `N→`, `N<tab>` numbering, or text from its offset).
 * @module
 */
import { parseJson } from "../../../core/json_read.ts";

/** One file line a read showed, framing removed. */
export interface ShownLine {
  /** 1-based line number. */
  line: number;
  text: string;
  /** The tool cut this line (Hermes' `... [truncated]`); `text` is what was left of it. */
  cut: boolean;
}

/** What one read showed. */
export interface UnframedRead {
  /** The path the call named. */
  path: string;
  /** The lines shown, in the order the result shows them. */
  lines: ShownLine[];
  /** The tool said more lines follow (a page); `continueAt` is the line its hint names, when it names one. */
  more?: { continueAt?: number };
  /** The tool answered with an error (its text). */
  error?: string;
}

/** How one known tool frames its reads. */
export interface ReadToolFraming {
  /** The tool names it applies to. */
  names: readonly string[];
  /** Where the framing was read from. */
  source: string;
  /** The path a call reads, from its arguments; undefined when the call reads no file. */
  path(args: Record<string, unknown>): string | undefined;
  /** What the result of a call with `args` shows. */
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
  let args: Json | undefined;
  try {
    args = asObject(parseJson(argumentsJson));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  if (args === undefined) return undefined;
  const framing = framingOf(name);
  if (framing === undefined) return undefined;
  const path = framing.path(args);
  if (path === undefined) return undefined;
  return { path, ...framing.unframe(result, args) };
}
