/**
 * A chat completion as OpenAI's streaming answer (`stream: true`): the first delta (role, and a tool call's
 * head), the text a word per chunk or each call's arguments in fragments, the finish reason, then with
 * `include_usage` a usage chunk, as OpenAI sends them. Concatenating the deltas gives the reply exactly.
 * @module
 */
import type { ChatUsage, ToolCall } from "../messages.ts";

/** Code points of tool-call arguments per streamed fragment. */
const ARGUMENT_FRAGMENT_CHARS = 16;

/** What a non-streaming reference reply holds that a stream carries. */
export interface StreamedCompletion {
  id: string;
  created: number;
  model: string;
  content: string | null;
  tool_calls?: ToolCall[];
  finish_reason: string;
  usage: ChatUsage;
}

/** The pieces `text` is streamed in: a word each, with its trailing whitespace; they join to `text`. */
function textPieces(text: string): string[] {
  return text === "" ? [] : text.match(/\s*\S+\s*/gu) ?? [text];
}

function fragments(text: string): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let at = 0; at < points.length; at += ARGUMENT_FRAGMENT_CHARS) {
    out.push(points.slice(at, at + ARGUMENT_FRAGMENT_CHARS).join(""));
  }
  return out;
}

/** The JSON chunks of `completion`'s stream, in order (without the final `[DONE]`). */
export function completionChunks(completion: StreamedCompletion, includeUsage: boolean): unknown[] {
  const { id, created, model } = completion;
  const head = { id, object: "chat.completion.chunk", created, model };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: unknown[] = [];
  const calls = completion.tool_calls ?? [];
  if (calls.length === 0) {
    chunks.push(chunk({ role: "assistant", content: "" }, null));
    for (const piece of textPieces(completion.content ?? "")) chunks.push(chunk({ content: piece }, null));
  } else {
    calls.forEach((call, index) => {
      const first = {
        tool_calls: [{
          index,
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: "" },
        }],
      };
      chunks.push(chunk(index === 0 ? { role: "assistant", content: null, ...first } : first, null));
      for (const piece of fragments(call.function.arguments)) {
        chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
      }
    });
  }
  chunks.push(chunk({}, completion.finish_reason));
  if (includeUsage) chunks.push({ ...head, choices: [], usage: completion.usage });
  return chunks;
}

/** The stream's bytes as server-sent events: each chunk as `data: JSON`, then `data: [DONE]`. */
export function serverSentEvents(chunks: readonly unknown[]): string[] {
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"];
}
