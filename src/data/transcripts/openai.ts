/**
 * Importers for OpenAI message lists (an array, or `{messages: [...]}`) and Hermes Agent session files.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { toolPairingProblem } from "../../core/tool_pairing.ts";
import {
  type ImportedTranscript,
  issueError,
  LenientMessageSchema,
  NeedleSchema,
  toChatMessage,
} from "./types.ts";

/** The descriptive fields of a Hermes session (all optional but `messages`). */
const HermesSessionSchema = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  model: z.string().optional(),
  source: z.string().optional(),
  scrubbing_passes: z.array(z.string()).optional(),
  messages: z.array(z.unknown()),
});

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
  const root = Array.isArray(json);
  const parsed = z.object({ messages: z.unknown(), needles: z.unknown().optional() })
    .safeParse(root ? { messages: json } : json);
  if (!parsed.success) throw new UsageError(`${path}: expected a message array or an object with 'messages'`);
  const messages = readMessageList(parsed.data.messages, path, root ? "(root)" : "messages");
  const needles = parsed.data.needles;
  return {
    format: "openai",
    path,
    messages,
    probes: [],
    meta: {},
    notes: [],
    ...(needles !== undefined ? { needles: readNeedles(needles, messages, path) } : {}),
  };
}

/** Imports a parsed Hermes Agent session (`{name, description, model, source, scrubbing_passes, messages}`). */
export function importHermesSession(json: unknown, path: string): ImportedTranscript {
  const parsed = HermesSessionSchema.safeParse(json);
  if (!parsed.success) throw issueError(path, "", parsed.error);
  const { messages, ...meta } = parsed.data;
  return {
    format: "hermes-session",
    path,
    messages: readMessageList(messages, path),
    probes: [],
    meta: { name: meta.name, model: meta.model, source: meta.source },
    notes: [],
  };
}

/** The checked `needles` of a `{messages, needles}` file: unique ids, each found verbatim in its message. */
export function readNeedles(value: unknown, messages: readonly ChatMessage[], path: string) {
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
