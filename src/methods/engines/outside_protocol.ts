/**
 * The outside-engine protocol shared by `exec:` and `http:` engines: request, reply schema (with recall
 * `tools`), recall tool requests and replies (docs/WORKER_PROTOCOL.md).
 *
 * @module
 */
import { z } from "zod";
import { assertResponseIJson } from "../../models/response_body.ts";
import { NotIJsonError } from "../../store/canonical.ts";
import {
  type ChatMessage,
  ChatMessageSchema,
  type ToolDefinition,
  ToolDefinitionSchema,
} from "../../models/messages.ts";
import { type CompressOptions, EngineError, EngineSkipped, type RecallReply } from "./engine.ts";
import { parseJson } from "../../core/json_read.ts";

/** The most recall tools an engine may offer. */
const MAX_RECALL_TOOLS = 32;

/** An outside engine's reply (extra top-level fields ignored); `session` is for `http:` tool calls. */
const OutsideReplySchema = z.object({
  messages: z.array(ChatMessageSchema),
  tools: z.array(ToolDefinitionSchema).max(MAX_RECALL_TOOLS).optional(),
  session: z.string().max(200).optional(),
  compress_ms: z.number().finite().nonnegative().optional(),
});

/** An outside engine's answer to one recall tool call: the text for the model, or an error. */
const OutsideToolReplySchema = z.union([
  z.object({ content: z.string() }),
  z.object({ error: z.string().max(2000) }),
]);

/** A parsed reply: the window, the tools offered (empty: none), the session id and own compress time. */
export interface OutsideReply {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  session?: string;
  compressMs?: number;
}

/** `{"skipped": "reason"}`: an engine that cannot run here (its row reads `skipped: reason`). */
export const OutsideSkipSchema = z.object({ skipped: z.string().min(1).max(2000) });

/** The request body for an outside engine (`context_length` only in a context-length run). */
export function outsideRequest(messages: ChatMessage[], opts: CompressOptions) {
  return {
    messages,
    budget_tokens: opts.budgetTokens,
    current_tokens: opts.currentTokens,
    ...(opts.contextLength !== undefined ? { context_length: opts.contextLength } : {}),
  };
}

/** Parses an outside engine's reply: problems are an {@link EngineError}, a skip an {@link EngineSkipped}. */
export function parseOutsideReplyWithTools(text: string, source: string): OutsideReply {
  let json: unknown;
  try {
    json = parseJson(text, { keepLoneSurrogates: true }); // named below as not I-JSON
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new EngineError(`${source}: output is not JSON (${error.message}): ${JSON.stringify(preview)}`);
  }
  try {
    assertResponseIJson(json);
  } catch (error) {
    if (!(error instanceof NotIJsonError)) throw error;
    throw new EngineError(`${source}: output is not I-JSON: ${error.message}`);
  }
  const skip = OutsideSkipSchema.safeParse(json);
  if (skip.success && !(json !== null && typeof json === "object" && "messages" in json)) {
    throw new EngineSkipped(skip.data.skipped.replace(/\s+/g, " ").trim());
  }
  const parsed = OutsideReplySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineError(`${source}: output field '${issue.path.join(".") || "(root)"}': ${issue.message}`);
  }
  const names = (parsed.data.tools ?? []).map((tool) => tool.function.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) {
    throw new EngineError(`${source}: output field 'tools': '${twice}' is offered twice`);
  }
  return {
    messages: parsed.data.messages,
    tools: parsed.data.tools ?? [],
    ...(parsed.data.session !== undefined ? { session: parsed.data.session } : {}),
    ...(parsed.data.compress_ms !== undefined ? { compressMs: parsed.data.compress_ms } : {}),
  };
}

/** The most characters of one recall tool reply the model is shown (the rest is cut, and the cut said). */
const MAX_RECALL_CONTENT_CHARS = 20_000;

/** The JSON of one recall tool request (`session` for `http:` engines that gave one). */
export function recallToolRequest(
  name: string,
  args: Record<string, unknown>,
  session?: string,
): Record<string, unknown> {
  return { op: "tool", ...(session !== undefined ? { session } : {}), name, arguments: args };
}

/** Parses one recall tool reply; anything malformed is an error reply naming the problem. */
export function parseRecallReply(text: string, source: string): RecallReply {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { ok: false, error: `${source}: tool reply is not JSON (${error.message})` };
  }
  const parsed = OutsideToolReplySchema.safeParse(json);
  if (!parsed.success) return { ok: false, error: `${source}: tool reply is neither {content} nor {error}` };
  if ("error" in parsed.data) return { ok: false, error: `${source}: ${parsed.data.error}` };
  const { content } = parsed.data;
  if (content.length <= MAX_RECALL_CONTENT_CHARS) return { ok: true, content };
  const cut = `\n[tool reply cut at ${MAX_RECALL_CONTENT_CHARS} characters]`;
  return { ok: true, content: `${content.slice(0, MAX_RECALL_CONTENT_CHARS)}${cut}` };
}
