/**
 * Checking what an engine returned: well-formed messages, valid tool pairing, a window no larger than the
 * input. A problem is the engine's failure with a reason, never fatal to the run.
 * @module
 */
import { z } from "zod";
import { type ChatMessage, ChatMessageSchema } from "../../models/messages.ts";
import { toolPairingProblem } from "../../methods/engines/tool_groups.ts";
import type { TokenCounter } from "../../tokens/types.ts";

/** The outcome of {@link validateEngineOutput}. */
export type OutputCheck =
  | { ok: true; messages: ChatMessage[]; tokens: number }
  | { ok: false; reason: string; pairingValid: boolean | null };

/** Validates `output` against the input's token count `inputTokens`. */
export function validateEngineOutput(
  output: unknown,
  inputTokens: number,
  counter: TokenCounter,
): OutputCheck {
  const parsed = z.array(ChatMessageSchema).safeParse(output);
  if (!parsed.success) {
    const { path, message } = parsed.error.issues[0];
    return {
      ok: false,
      reason: `malformed output: messages.${path.join(".")}: ${message}`,
      pairingValid: null,
    };
  }
  const messages = parsed.data;
  if (messages.length === 0) {
    return { ok: false, reason: "malformed output: no messages", pairingValid: null };
  }
  const problem = toolPairingProblem(messages);
  if (problem !== null) return { ok: false, reason: `broken tool pairing: ${problem}`, pairingValid: false };
  const tokens = counter.countMessages(messages);
  if (tokens > inputTokens) {
    return { ok: false, reason: `window grew from ${inputTokens} to ${tokens} tokens`, pairingValid: true };
  }
  return { ok: true, messages, tokens };
}
