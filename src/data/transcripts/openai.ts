/**
 * Importer for OpenAI message lists: a JSON array of messages, or an object with a `messages` array.
 * The same reader serves Hermes session files (hermes_session.ts).
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { toolPairingProblem } from "../../core/tool_pairing.ts";
import { type ImportedTranscript, issueError, LenientMessageSchema, toChatMessage } from "./types.ts";

/** Validates a list of messages (errors name the file and message index) and checks tool pairing. */
export function readMessageList(value: unknown, path: string, field = "messages"): ChatMessage[] {
  if (!Array.isArray(value)) throw new UsageError(`${path}: '${field}' must be an array of messages`);
  if (value.length === 0) throw new UsageError(`${path}: '${field}' is empty`);
  const messages = value.map((item, index) => {
    const parsed = LenientMessageSchema.safeParse(item);
    if (!parsed.success) throw issueError(path, `${field}[${index}]`, parsed.error);
    return toChatMessage(parsed.data);
  });
  const problem = toolPairingProblem(messages);
  if (problem !== null) throw new UsageError(`${path}: broken tool pairing: ${problem}`);
  return messages;
}

/** Imports parsed JSON that is a message array or `{messages: [...]}`. */
export function importOpenAIMessages(json: unknown, path: string): ImportedTranscript {
  if (Array.isArray(json)) {
    return {
      format: "openai",
      path,
      messages: readMessageList(json, path, "(root)"),
      probes: [],
      meta: {},
      notes: [],
    };
  }
  const parsed = z.object({ messages: z.unknown() }).safeParse(json);
  if (!parsed.success) throw new UsageError(`${path}: expected a message array or an object with 'messages'`);
  return {
    format: "openai",
    path,
    messages: readMessageList(parsed.data.messages, path),
    probes: [],
    meta: {},
    notes: [],
  };
}
