/**
 * The checks a collected trajectory must pass before evaluation (else the question is invalid, with reasons):
 * a non-empty first `system` message (the agent's own, recorded, never compared); calls and results paired;
 * workspace files unchanged (SHA-256; without hashes "not verifiable", never passed); each article line shown
 * unaltered through the file-reading tool (read_framing.ts), missing lines named with their cause.
 * @module
 */
import { createHash } from "node:crypto";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import { type ShownLine, type UnframedRead, unframeRead } from "./read_framing.ts";
import type { Collection } from "./trajectory.ts";
import { fileText, type WorkspaceFile, workspaceFiles } from "../workspace.ts";

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
        else {calls.set(call.id, {
            name: call.function.name,
            arguments: call.function.arguments,
            results: [],
          });}
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
  const hashesBefore = collection.hashes_before;
  const hashesAfter = collection.hashes_after;
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
