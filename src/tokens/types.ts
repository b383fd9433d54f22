/**
 * The token-counting contract. `loadTokenCounter` in load.ts builds one from a Hugging Face tokenizer
 * directory (tokenizer.json + tokenizer_config.json with a chat template).
 *
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";

/** Counts tokens exactly as the model sees them: chat template rendering, then BPE encoding. */
export interface TokenCounter {
  /** A short name of the tokenizer (e.g. "Qwen3"). */
  readonly name: string;
  /** SHA-256 (hex) identifying the tokenizer files; recorded in every run manifest. */
  readonly hash: string;
  /** Token count of the messages rendered by the chat template with the generation prompt added. */
  countMessages(messages: ChatMessage[], tools?: ToolDefinition[]): number;
  /** Token count of a plain text (no template, no special tokens added). */
  countText(text: string): number;
  /**
   * True when counting is additive at line breaks: `countText(a + "\n" + b)` equals `countText(a + "\n") +
   * countText(b)` whenever `b` begins with a non-whitespace character (so a text of such lines is counted line
   * by line, in time linear in its lines). Absent or false: only whole texts are counted exactly.
   */
  readonly additiveAtLineBreaks?: boolean;
}
