/**
 * Summarizing a slice of a transcript with the chat model, for the model-based engines. Prompts always say
 * "summary" (the reference model dispatches on it) and ask for a length the caller can afford.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel } from "../../models/types.ts";
import { EngineError } from "./engine.ts";

/** The structured template Hermes-style compaction asks for. */
export const STRUCTURED_SUMMARY_TEMPLATE = [
  "## Goal",
  "## Progress",
  "## Key facts (exact identifiers, values, tokens, paths, numbers)",
  "## Files",
  "## Next steps",
].join("\n");

/** Renders messages as plain text for a summarizer: one block per message, tool calls spelled out. */
export function renderTranscript(messages: ChatMessage[]): string {
  const blocks: string[] = [];
  for (const message of messages) {
    const tool = `[tool result ${message.tool_call_id ?? ""}]`.replace(" ]", "]");
    const lines = [message.role === "tool" ? tool : `[${message.role}]`];
    if (message.content) lines.push(message.content);
    for (const call of message.tool_calls ?? []) {
      lines.push(`(tool call ${call.id}: ${call.function.name} ${call.function.arguments})`);
    }
    blocks.push(lines.join("\n"));
  }
  return blocks.join("\n\n");
}

/**
 * Asks the chat model for a summary of `messages` (what they are: `scope`) in at most `maxTokens`, following
 * `template` if given; a failed call becomes an {@link EngineError}.
 */
export async function summarizeMessages(
  chat: ChatModel,
  messages: ChatMessage[],
  options: { maxTokens: number; template?: string; scope?: string },
) {
  const scope = options.scope ?? "the conversation below";
  const instructions = [
    `Write a summary of ${scope} so that an agent can continue the task without it.`,
    "In the summary keep every exact fact verbatim: identifiers, tokens, values, file paths, numbers, decisions.",
    options.template ? `Use this structure for the summary:\n${options.template}` : "",
    `Keep the summary under ${options.maxTokens} tokens.`,
  ].filter((line) => line !== "").join("\n");
  // The instructions last: the reference model reads the last user message as the request.
  const result = await chat.complete({
    messages: [
      { role: "system", content: "You write faithful, compact summaries of agent conversations." },
      { role: "user", content: `<conversation>\n${renderTranscript(messages)}\n</conversation>` },
      { role: "user", content: instructions },
    ],
    max_tokens: Math.max(1, Math.floor(options.maxTokens)),
  });
  if (!result.ok) throw new EngineError(`summary call failed: ${result.error}`, { records: [result.record] });
  return {
    text: result.content,
    usage: { input_tokens: result.usage.prompt_tokens, output_tokens: result.usage.completion_tokens },
    record: result.record,
  };
}

/** The message that carries a summary into the compacted window. */
export function summaryMessage(text: string, label = "Summary of the earlier conversation"): ChatMessage {
  return { role: "user", content: `[${label}]\n${text}` };
}

/**
 * Shortens `text` until `build(text)` counts at most `budget` tokens (cutting from the end in proportion to
 * the overrun, then halving); the text that fits, possibly "".
 */
export function fitTextToBudget(
  text: string,
  build: (text: string) => ChatMessage[],
  budget: number,
  counter: { countMessages(messages: ChatMessage[]): number; countText(text: string): number },
): string {
  let current = text;
  for (let round = 0; round < 12; round++) {
    const over = counter.countMessages(build(current)) - budget;
    if (over <= 0 || current.length === 0) return current;
    const tokens = Math.max(1, counter.countText(current));
    const charsPerToken = current.length / tokens;
    const cut = round < 6 ? Math.ceil((over + 4) * charsPerToken) : Math.ceil(current.length / 2);
    current = current.slice(0, Math.max(0, current.length - cut));
  }
  return counter.countMessages(build(current)) <= budget ? current : "";
}
