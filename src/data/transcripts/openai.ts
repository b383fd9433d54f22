/**
 * Importer for OpenAI message lists (an array, or `{messages: [...]}`); it serves Hermes sessions too.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { toolPairingProblem } from "../../core/tool_pairing.ts";
import { type ImportedTranscript, issueError, LenientMessageSchema, toChatMessage } from "./types.ts";
import { type Needle, NeedleSchema } from "./needle.ts";

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
  const parsed = z.object({ messages: z.unknown(), needles: z.unknown().optional() }).safeParse(json);
  if (!parsed.success) throw new UsageError(`${path}: expected a message array or an object with 'messages'`);
  const messages = readMessageList(parsed.data.messages, path);
  return {
    format: "openai",
    path,
    messages,
    probes: [],
    meta: {},
    notes: [],
    ...(parsed.data.needles !== undefined
      ? { needles: readNeedles(parsed.data.needles, messages, path) }
      : {}),
  };
}

/** The checked `needles` of a `{messages, needles}` file: unique ids, each found verbatim in its message. */
export function readNeedles(value: unknown, messages: readonly ChatMessage[], path: string): Needle[] {
  const parsed = z.array(NeedleSchema).safeParse(value);
  if (!parsed.success) throw issueError(path, "needles", parsed.error);
  const seen = new Set<string>();
  parsed.data.forEach((needle, index) => {
    const where = `${path}: needles[${index}] (${needle.id})`;
    if (seen.has(needle.id)) throw new UsageError(`${where}: the id is given twice`);
    seen.add(needle.id);
    const message = messages[needle.message_index];
    if (message === undefined) {
      throw new UsageError(
        `${where}: message_index ${needle.message_index} is past the last message (${messages.length - 1})`,
      );
    }
    if (!(message.content ?? "").includes(needle.fact)) {
      throw new UsageError(
        `${where}: its fact is not in messages[${needle.message_index}] (the file was changed after it was generated)`,
      );
    }
  });
  return parsed.data;
}
