/**
 * Importing a Hermes Agent session (JSON with OpenAI-format `messages`) as a hotpot trajectory. Only the
 * public chat fields survive (role, content, tool_calls, tool_call_id, name); anything else a session
 * carries (reasoning, timestamps, metadata) is dropped. A final assistant message without tool calls is the
 * agent's answer: it is kept aside, not evaluated.
 *
 * The first message is kept as it is: it is the agent's own initial system prompt (Hermes' for a Hermes
 * session), which the collection checks require to be present and record with its hash.
 *
 * Workspace hashes: a session may carry `workspace_hashes_before` / `workspace_hashes_after` (path → SHA-256);
 * without them "files unchanged" is not verifiable for that session (recorded as such, never as passed).
 *
 * @module
 */
import { z } from "zod";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { formatIssuePath } from "../../../data/hotpot_record.ts";
import { UsageError } from "../../../errors.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import type { Collection } from "./trajectory.ts";

/** A Hermes session file, as far as this import reads it (other fields are ignored). */
export const HermesSessionSchema = z.object({
  messages: z.array(z.looseObject({})).min(1),
  workspace_hashes_before: z.record(z.string(), z.string()).optional(),
  workspace_hashes_after: z.record(z.string(), z.string()).optional(),
});

/** Keeps only the public chat fields of one message and validates them. */
function publicMessage(raw: Record<string, unknown>, where: string): ChatMessage {
  const picked: Record<string, unknown> = {};
  for (const key of ["role", "content", "tool_calls", "tool_call_id", "name"]) {
    if (raw[key] !== undefined) picked[key] = raw[key];
  }
  if (!("content" in picked)) picked.content = null;
  if (Array.isArray(picked.tool_calls)) {
    picked.tool_calls = picked.tool_calls.map((call) => {
      if (typeof call !== "object" || call === null) return call;
      const c = call as Record<string, unknown>;
      const fn = (c.function ?? {}) as Record<string, unknown>;
      return { id: c.id, type: c.type ?? "function", function: { name: fn.name, arguments: fn.arguments } };
    });
  }
  const parsed = ChatMessageSchema.strict().safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${where}: field ${formatIssuePath(issue.path)}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Imports a parsed Hermes session as the trajectory of `record`; `source` (e.g. the file name) prefixes
 * errors, which name the message index and field.
 */
export function importHermesSession(
  json: unknown,
  record: HotpotRecord,
  source = "hermes session",
): Collection {
  const parsed = HermesSessionSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${source}: field ${formatIssuePath(issue.path)}: ${issue.message}`);
  }
  const messages = parsed.data.messages.map((m, i) => publicMessage(m, `${source}: messages[${i}]`));
  let finalAnswer: string | null = null;
  const last = messages[messages.length - 1];
  if (last.role === "assistant" && (last.tool_calls ?? []).length === 0) {
    finalAnswer = last.content;
    messages.pop();
  }
  return {
    question_id: record.id,
    source: "hermes",
    messages,
    final_answer: finalAnswer,
    hashes_before: parsed.data.workspace_hashes_before ?? null,
    hashes_after: parsed.data.workspace_hashes_after ?? null,
  };
}
