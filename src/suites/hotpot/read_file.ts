/**
 * The hotpot workspace's `read_file` tool in Hermes Agent's format; the one place the line format is defined:
 * `${N}|${text}`, N 1-based right-aligned to 6, one sentence per line (**sentence id = line number − 1**).
 * @module
 */
import { resolve, sep } from "node:path";
import { z } from "zod";
import type { ToolDefinition } from "../../models/messages.ts";
import { parseJson } from "../../core/json_read.ts";

/** Lines shown by one read when no limit is given (Hermes' default). */
const DEFAULT_READ_LIMIT = 500;

/** One numbered line: `     1|text`. */
export function formatNumberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, " ")}|${text}`;
}

/** The sentence id shown on a line number (line numbers are 1-based, sentence ids 0-based). */
export function sentenceIdFromLineNumber(lineNumber: number): number {
  return lineNumber - 1;
}

/** The line number that shows a sentence id. */
export function lineNumberFromSentenceId(sentenceId: number): number {
  return sentenceId + 1;
}

/** Parses `N|text` lines back into `{line, text}` pairs; lines not in that format are ignored. */
export function parseNumberedLines(content: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  for (const raw of content.split("\n")) {
    const match = /^ *(\d+)\|(.*)$/s.exec(raw);
    if (match) out.push({ line: Number(match[1]), text: match[2] });
  }
  return out;
}

/** The lines of a workspace file's text (one trailing newline ends the last line, it adds none). */
function splitFileLines(text: string): string[] {
  if (text === "") return [];
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return body.split("\n");
}

const ReadFileArgsSchema = z.object({
  path: z.string().min(1),
  offset: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).optional(),
});

/** The `read_file` tool definition sent to chat models. */
export const READ_FILE_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "read_file",
    description:
      "Read a text file of the workspace. Returns its lines as 'LINE_NUMBER|TEXT' (1-based line numbers). " +
      `Shows at most 'limit' lines (default ${DEFAULT_READ_LIMIT}) starting at line 'offset' (default 1).`,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path of the file, relative to the workspace." },
        offset: { type: "integer", minimum: 1, description: "First line to show (1-based)." },
        limit: { type: "integer", minimum: 1, description: "Maximum number of lines to show." },
      },
      required: ["path"],
    },
  },
};

/** The parsed result of one `read_file` call, as Hermes reports it. */
export const ReadFileResultSchema = z.object({
  content: z.string(),
  total_lines: z.number().int(),
  file_size: z.number().int(),
  truncated: z.boolean(),
  hint: z.string().optional(),
  is_binary: z.boolean(),
  is_image: z.boolean(),
});

/** Runs a `read_file` call against `workspaceDir`; bad calls give `{"error": ...}` results, never throw. */
export async function executeReadFile(workspaceDir: string, argumentsJson: string): Promise<string> {
  let args: z.infer<typeof ReadFileArgsSchema>;
  try {
    const parsed = ReadFileArgsSchema.safeParse(parseJson(argumentsJson));
    if (!parsed.success) {
      return JSON.stringify({ error: `invalid arguments: ${parsed.error.issues[0].message}` });
    }
    args = parsed.data;
  } catch (error) {
    if (error instanceof SyntaxError) return JSON.stringify({ error: "arguments are not valid JSON" });
    throw error;
  }
  const root = resolve(workspaceDir);
  const full = resolve(root, args.path);
  if (!full.startsWith(root + sep)) {
    return JSON.stringify({ error: `path outside the workspace: ${args.path}` });
  }
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(full);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
      return JSON.stringify({ error: `file not found: ${args.path}` });
    }
    throw error;
  }
  const lines = splitFileLines(new TextDecoder().decode(bytes));
  const offset = args.offset ?? 1;
  const limit = args.limit ?? DEFAULT_READ_LIMIT;
  const shown = lines.slice(offset - 1, offset - 1 + limit);
  const last = offset - 1 + shown.length;
  const truncated = last < lines.length;
  const result: z.infer<typeof ReadFileResultSchema> = {
    content: shown.map((text, i) => formatNumberedLine(offset + i, text)).join("\n"),
    total_lines: lines.length,
    file_size: bytes.length,
    truncated,
    ...(truncated
      ? {
        hint: `Use offset=${
          last + 1
        } to continue reading (showing ${offset}-${last} of ${lines.length} lines)`,
      }
      : {}),
    is_binary: false,
    is_image: false,
  };
  return JSON.stringify(result);
}
