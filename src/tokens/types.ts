/**
 * The token-counting contract; `loadTokenCounter` (load.ts) builds one from a Hugging Face tokenizer directory.
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";

/** Counts tokens exactly as the model sees them: chat template rendering, then BPE encoding. */
export interface TokenCounter {
  readonly name: string;
  /** SHA-256 (hex) identifying the tokenizer files; recorded in every run manifest. */
  readonly hash: string;
  /** Token count of the messages rendered by the chat template with the generation prompt added. */
  countMessages(messages: ChatMessage[], tools?: ToolDefinition[]): number;
  /** Token count of a plain text (no template, no special tokens added). */
  countText(text: string): number;
  /** The prompt text {@link countMessages} counts: the chat template's render with the generation prompt. */
  render?(messages: ChatMessage[]): string;
  /** True when counts add up at a line break before non-whitespace (a text is then counted line by line). */
  readonly additiveAtLineBreaks?: boolean;
}
