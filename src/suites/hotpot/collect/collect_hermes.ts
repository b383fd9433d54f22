/**
 * A Hermes Agent session (OpenAI-format `messages`) as a hotpot trajectory: only the public chat fields kept,
 * the first (system) message as it is, a final answer without tool calls kept aside; optional
 * `workspace_hashes_before`/`_after` (without them "files unchanged" is not verifiable).
 * @module
 */
import { z } from "zod";
import { formatIssuePath, type HotpotRecord } from "../../../data/hotpot_record.ts";
import { UsageError } from "../../../errors.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import type { Collection } from "./trajectory.ts";

/** A Hermes session file, as far as this import reads it (other fields are ignored). */
const HermesSessionSchema = z.object({
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

/** A parsed Hermes session as `record`'s trajectory; errors start with `source` and name index and field. */
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
