/**
 * A chat completion as OpenAI's streaming answer (`stream: true`): server-sent events, each
 * `data: {chat.completion.chunk}` and a blank line, ending with `data: [DONE]`.
 *
 * The events, in order: the first delta (`role: "assistant"`; for a text reply `content: ""`, for a tool call
 * `content: null` and the call's `index`, `id`, `type` and function `name` with empty `arguments`); the text
 * in pieces of one word each (the word's trailing whitespace with it, leading whitespace with the first), or
 * each call's arguments in fragments of {@link ARGUMENT_FRAGMENT_CHARS} code points; an empty delta with
 * the `finish_reason`; with `stream_options.include_usage`, a last chunk with `choices: []` and the usage
 * (every other chunk then carries `usage: null`, as OpenAI sends it). Concatenating the deltas gives the
 * non-streaming reply exactly.
 *
 * @module
 */
import type { ChatUsage, ToolCall } from "../messages.ts";

/** Code points of tool-call arguments per streamed fragment. */
export const ARGUMENT_FRAGMENT_CHARS = 16;

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

/** The pieces `text` is streamed in (see the module documentation); they join to `text`. */
export function textPieces(text: string): string[] {
  if (text === "") return [];
  const pieces = text.match(/\s*\S+\s*/gu);
  if (pieces === null) return [text];
  return pieces;
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
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
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
      const head = {
        tool_calls: [{
          index,
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: "" },
        }],
      };
      chunks.push(chunk(index === 0 ? { role: "assistant", content: null, ...head } : head, null));
      for (const piece of fragments(call.function.arguments)) {
        chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
      }
    });
  }
  chunks.push(chunk({}, completion.finish_reason));
  if (includeUsage) {
    chunks.push({
      id: completion.id,
      object: "chat.completion.chunk",
      created: completion.created,
      model: completion.model,
      choices: [],
      usage: completion.usage,
    });
  }
  return chunks;
}

/** The stream's bytes as server-sent events: each chunk as `data: JSON`, then `data: [DONE]`. */
export function serverSentEvents(chunks: readonly unknown[]): string[] {
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"];
}
