/**
 * Per-message token breakdown of a prompt, for reports and the `tokens --json` command.
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import type { HfTokenCounter } from "./counter.ts";

interface MessageTokens {
  index: number;
  role: ChatMessage["role"];
  /** Tokens added by this message; may be 0 or negative for odd templates. */
  tokens: number;
}

/** Total tokens of a prompt and how they split across messages and the generation prompt. */
export interface TokenBreakdown {
  /** Exact tokens of the whole prompt with the generation prompt. */
  total: number;
  messages: MessageTokens[];
  /** Tokens the generation prompt adds. */
  generationPrompt: number;
}

/**
 * Splits a prompt's exact count: message `i` gets `P(i+1) - P(i)` (`P(k)`: the first `k` messages rendered
 * without the generation prompt), the generation prompt `total - P(n)`; the parts add up to `total`.
 */
export function tokenBreakdown(
  counter: HfTokenCounter,
  messages: ChatMessage[],
  tools?: ToolDefinition[],
): TokenBreakdown {
  const perMessage: MessageTokens[] = [];
  let previous = 0;
  for (let i = 0; i < messages.length; i++) {
    const prefix = counter.countMessagesWithoutGenerationPrompt(messages.slice(0, i + 1), tools);
    perMessage.push({ index: i, role: messages[i].role, tokens: prefix - previous });
    previous = prefix;
  }
  const total = counter.countMessages(messages, tools);
  return { total, messages: perMessage, generationPrompt: total - previous };
}
