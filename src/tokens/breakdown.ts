/**
 * Per-message token breakdown of a prompt, for reports and the `tokens --json` command.
 *
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import type { HfTokenCounter } from "./counter.ts";

/** The tokens one message adds. */
export interface MessageTokens {
  /** Position in the message list. */
  index: number;
  /** The message's role. */
  role: ChatMessage["role"];
  /** Tokens added by this message (see {@link tokenBreakdown}); may be 0 or negative for odd templates. */
  tokens: number;
}

/** Total tokens of a prompt and how they split across messages and the generation prompt. */
export interface TokenBreakdown {
  /** Exact tokens of the whole prompt with the generation prompt (what the model is sent). */
  total: number;
  /** Tokens added per message. */
  messages: MessageTokens[];
  /** Tokens the generation prompt adds (`total` less the prompt rendered without it). */
  generationPrompt: number;
}

/**
 * Splits a prompt's exact count. Message `i` gets `P(i+1) - P(i)`, where `P(k)` is the token count of the
 * first `k` messages rendered (with the tools) without the generation prompt, and `P(0) = 0`: so message 0
 * carries the template's preamble (BOS, the tools block), and a message the template changes in hindsight
 * (e.g. closing a run of tool results) is charged to the message that caused the change. The generation
 * prompt gets `total - P(n)`. The parts add up to `total` exactly.
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
