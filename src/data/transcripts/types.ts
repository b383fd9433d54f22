/**
 * What every transcript importer produces (needles and probes with it), and the lenient message schema real
 * files are read with.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { parseInputJson } from "../../fs_input.ts";

/** Where in a message a needle was placed. */
export type NeedlePosition = "start" | "middle" | "end";

/** A unique fact planted in a generated transcript, with the question that asks for it. */
export const NeedleSchema = z.object({
  id: z.string(),
  /** The fact sentence as planted (verbatim recall looks for exactly this). */
  fact: z.string(),
  question: z.string(),
  /** The exact string a correct answer contains. */
  answer: z.string(),
  message_index: z.number().int().nonnegative(),
  /** `message_index / (messages - 1)`: 0 is the first message, 1 the last. */
  depth: z.number().min(0).max(1),
  position: z.enum(["start", "middle", "end"]),
  role: z.enum(["user", "assistant", "tool"]),
});
export type Needle = z.infer<typeof NeedleSchema>;

/** The transcript formats the importers read. */
export const TRANSCRIPT_FORMATS = ["openai", "hermes-session", "sharegpt", "locomo"] as const;
export type TranscriptFormat = typeof TRANSCRIPT_FORMATS[number];

/** A question about an imported transcript (LoCoMo QA, a Hermes probe) with its gold answer and evidence. */
export const ProbeSchema = z.object({
  id: z.string().optional(),
  question: z.string(),
  answer: z.string(),
  /** Facts a correct answer must hold, each matched on its own (default: `[answer]`). */
  facts: z.array(z.string()).optional(),
  evidence: z.array(z.number().int().nonnegative()),
  /** The question's category or probe type (recall is reported per type). */
  category: z.string().optional(),
  /** A LoCoMo category 5 item's adversarial answer (recorded; its correct reply is a decline). */
  adversarial_answer: z.string().optional(),
  /** `locomo`: also scored by LoCoMo's answer F1 for its category (a LoCoMo QA annotation). */
  scoring: z.literal("locomo").optional(),
});
export type Probe = z.infer<typeof ProbeSchema>;

/** How a file of several samples (LoCoMo samples, ShareGPT lines) is imported: which one (0-based, default 0). */
export interface ImportOptions {
  sample?: number;
}

export interface ImportedTranscript {
  format: TranscriptFormat;
  path: string;
  messages: ChatMessage[];
  /** Questions with gold answers, when the format has them (LoCoMo); else empty. */
  probes: Probe[];
  /** Descriptive fields of the source (name, model, sample index …). */
  meta: Record<string, unknown>;
  /** What the importer skipped or changed, one line each. */
  notes: string[];
  /** The planted facts a `{messages, needles}` file carries, checked against its messages. */
  needles?: Needle[];
}

const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });

/** The most characters one message's content (or tool-call arguments) may hold: ~1 M tokens. */
export const MAX_MESSAGE_CHARS = 4_000_000;

/** The most messages one imported transcript may hold. */
export const MAX_TRANSCRIPT_MESSAGES = 1_000_000;

/** An OpenAI message as real files hold it (content a string, null, absent or text parts; extras ignored). */
export const LenientMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.union([z.string().max(MAX_MESSAGE_CHARS), z.null(), z.array(TextPartSchema)]).optional(),
  tool_calls: z.array(z.object({
    id: z.string().min(1),
    type: z.literal("function").default("function"),
    function: z.object({
      name: z.string().min(1),
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
    }),
  })).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

/** JSON text as Python's `json.dumps(value, ensure_ascii=False)` writes it (`transformers`' `tojson`). */
export function pythonJsonText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonText).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value as Record<string, unknown>);
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJsonText(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Converts a lenient message into the shared {@link ChatMessage} shape. */
export function toChatMessage(message: z.infer<typeof LenientMessageSchema>): ChatMessage {
  const content = Array.isArray(message.content)
    ? message.content.map((part) => part.text).join("")
    : message.content ?? null;
  const out: ChatMessage = { role: message.role, content };
  if (message.tool_calls !== undefined && message.tool_calls.length > 0) {
    out.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      type: "function" as const,
      function: {
        name: call.function.name,
        arguments: typeof call.function.arguments === "string"
          ? call.function.arguments
          : pythonJsonText(call.function.arguments),
      },
    }));
  }
  if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id;
  if (message.name !== undefined) out.name = message.name;
  return out;
}

/** A {@link UsageError} naming the file, the place (`messages[3]`, `line 2: `) and the zod issue's field. */
export function issueError(path: string, where: string, error: z.ZodError): UsageError {
  const issue = error.issues[0];
  // The issue's path as `.key[index].key` after `where`.
  let field = where +
    issue.path.map((key) => typeof key === "number" ? `[${key}]` : `.${String(key)}`).join("");
  if (field.startsWith(".")) field = field.slice(1);
  field = field.replace(/: \./, ": ");
  return new UsageError(`${path}: ${field || "(root)"}: ${issue.message}`);
}

/** Parses a transcript file's JSON text; invalid JSON is a {@link UsageError} naming `where` (file, and line). */
export function parseJsonText(text: string, where: string): unknown {
  return parseInputJson(text, where, undefined, { notJson: (detail) => `invalid JSON: ${detail}` });
}
