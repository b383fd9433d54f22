/**
 * The checks every collected trajectory must pass before it is evaluated. A failed check marks the
 * question invalid with the reason(s):
 * - the agent's initial system prompt is present: the first message is a non-empty `system` message. It is
 *   the agent's own prompt (Hermes' for a Hermes session), recorded and hashed — never compared with ours;
 * - every tool call is paired with exactly one later tool result, and every tool result with a call;
 * - the workspace files were as the record says before the collection and unchanged after it (SHA-256). A
 *   collection that carries no workspace hashes (an imported session without them) cannot show this: it is
 *   recorded as `files_unchanged: "not verifiable"`, never as passed, and the content checks below still run;
 * - every line a `read_file` result shows equals that line of the file (no truncated or altered line);
 * - every article was read whole: each line of each file appears in some `read_file` result.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { HotpotRecord } from "../../data/hotpot_record.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { parseNumberedLines, ReadFileArgsSchema, ReadFileResultSchema } from "./read_file.ts";
import type { Collection } from "./trajectory.ts";
import { fileText, type WorkspaceFile, workspaceFiles } from "./workspace.ts";

/** Whether the workspace was shown unchanged: by hashes taken around the collection, or not at all. */
export type FilesUnchanged = "verified" | "not verifiable";

/** The verdict on one collection. */
export type CollectionCheck =
  & ({ valid: true } | { valid: false; reason: string })
  & { files_unchanged: FilesUnchanged };

/** The agent's initial system prompt as recorded with a trajectory. */
export interface SystemPromptRecord {
  text: string;
  /** SHA-256 (hex) of the prompt's UTF-8 bytes. */
  sha256: string;
}

/** The initial system prompt of a trajectory: its first message when that is a non-empty system message. */
export function initialSystemPrompt(messages: readonly ChatMessage[]): SystemPromptRecord | null {
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

/** The numbered-line content of a tool result: Hermes JSON `{content}` or plain `N|text` text. */
function resultContent(content: string): { content: string; truncated: boolean } | null {
  try {
    const json = JSON.parse(content);
    const parsed = ReadFileResultSchema.safeParse(json);
    if (parsed.success) return { content: parsed.data.content, truncated: parsed.data.truncated };
    return null;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { content, truncated: false };
  }
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
        else {calls.set(call.id, {
            name: call.function.name,
            arguments: call.function.arguments,
            results: [],
          });}
      }
    } else if (message.role === "tool") {
      const call = message.tool_call_id === undefined ? undefined : calls.get(message.tool_call_id);
      if (call === undefined) {
        reasons.push(
          `tool result at message ${index} answers no earlier call (${message.tool_call_id ?? "no id"})`,
        );
      } else {
        call.results.push(message.content ?? "");
      }
    }
  }
  for (const [id, call] of calls) {
    if (call.results.length === 0) reasons.push(`tool call ${id} has no result`);
    if (call.results.length > 1) reasons.push(`tool call ${id} has ${call.results.length} results`);
  }

  const files = workspaceFiles(record.context);
  const hashesBefore = collection.hashes_before;
  const hashesAfter = collection.hashes_after;
  const filesUnchanged: FilesUnchanged = hashesBefore !== null && hashesAfter !== null
    ? "verified"
    : "not verifiable";
  for (const f of files) {
    const expected = createHash("sha256").update(fileText(f.lines), "utf8").digest("hex");
    if (hashesBefore !== null && hashesBefore[f.path] !== expected) {
      reasons.push(`workspace file ${f.path} did not match its article before collection`);
    }
    if (hashesBefore !== null && hashesAfter !== null && hashesAfter[f.path] !== hashesBefore[f.path]) {
      reasons.push(`workspace file ${f.path} changed during collection`);
    }
  }

  const covered = new Map<string, Set<number>>(files.map((f) => [f.path, new Set<number>()]));
  const truncatedReads = new Set<string>();
  for (const [id, call] of calls) {
    if (call.name !== "read_file" || call.results.length !== 1) continue;
    let path: string;
    try {
      const args = ReadFileArgsSchema.safeParse(JSON.parse(call.arguments));
      if (!args.success) continue;
      path = args.data.path;
    } catch (error) {
      if (error instanceof SyntaxError) continue;
      throw error;
    }
    const file = matchFile(files, path);
    const result = resultContent(call.results[0]);
    if (file === undefined || result === null) continue;
    if (result.truncated) truncatedReads.add(file.path);
    const seen = covered.get(file.path) as Set<number>;
    for (const { line, text } of parseNumberedLines(result.content)) {
      if (line === file.lines.length + 1 && text === "") continue; // Hermes shows the empty line after a final newline.
      if (line < 1 || line > file.lines.length) {
        reasons.push(
          `read ${id} of ${file.path} shows line ${line}, beyond the file's ${file.lines.length} lines`,
        );
      } else if (file.lines[line - 1] !== text) {
        reasons.push(`read ${id} of ${file.path} shows line ${line} truncated or altered`);
      } else {
        seen.add(line);
      }
    }
  }
  for (const f of files) {
    const seen = covered.get(f.path) as Set<number>;
    const missing = f.lines.map((_, i) => i + 1).filter((n) => !seen.has(n));
    if (missing.length > 0) {
      const how = truncatedReads.has(f.path) ? " (a read was truncated)" : "";
      reasons.push(
        `article "${f.title}" (${f.path}) not read whole: lines ${lineRanges(missing)} never shown${how}`,
      );
    }
  }
  return reasons.length === 0
    ? { valid: true, files_unchanged: filesUnchanged }
    : { valid: false, reason: reasons.join("; "), files_unchanged: filesUnchanged };
}
