/**
 * The outside-engine protocol shared by `exec:` and `http:` engines: the request body
 * `{messages, budget_tokens, current_tokens}` and the zod schema of the reply `{messages}`.
 *
 * @module
 */
import { z } from "zod";
import { type ChatMessage, ChatMessageSchema } from "../../models/messages.ts";
import type { CompressOptions } from "./engine.ts";
import { EngineError, EngineSkipped } from "./engine.ts";

/** The JSON an outside engine receives. */
export interface OutsideRequest {
  messages: ChatMessage[];
  budget_tokens: number;
  current_tokens: number;
}

/** The JSON an outside engine must answer with (extra top-level fields are ignored). */
export const OutsideReplySchema = z.object({ messages: z.array(ChatMessageSchema) });

/**
 * An outside engine that cannot run here (a missing package or daemon) answers `{"skipped": "reason"}`
 * instead: its row then reads `skipped: reason`.
 */
export const OutsideSkipSchema = z.object({ skipped: z.string().min(1).max(2000) });

/** Builds the request body for an outside engine. */
export function outsideRequest(messages: ChatMessage[], opts: CompressOptions): OutsideRequest {
  return { messages, budget_tokens: opts.budgetTokens, current_tokens: opts.currentTokens };
}

/**
 * Parses and validates an outside engine's reply text; problems become an {@link EngineError}, a
 * `{"skipped": reason}` reply an {@link EngineSkipped}.
 */
export function parseOutsideReply(text: string, source: string): ChatMessage[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new EngineError(`${source}: output is not JSON (${error.message}): ${JSON.stringify(preview)}`);
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
  return parsed.data.messages;
}
