/**
 * `summarizeWithin`: a summary that fits is used; one that overflows is retried shorter; one the provider cut
 * off at max_tokens is never used; after the retries the condition is invalid, never truncated.
 */
import assert from "node:assert/strict";
import { summarizeWithin } from "../src/methods/summarize.ts";
import type { ChatModel, ChatRequest, ChatResult } from "../src/models/types.ts";

/** A chat model that replies with scripted contents and finish reasons, recording the max_tokens asked. */
class ScriptedChat implements ChatModel {
  readonly model = "scripted";
  readonly asked: number[] = [];
  constructor(private readonly replies: { content: string; finish: string }[]) {}
  complete(request: ChatRequest): Promise<ChatResult> {
    this.asked.push(request.max_tokens ?? -1);
    const reply = this.replies[Math.min(this.asked.length - 1, this.replies.length - 1)];
    return Promise.resolve({
      ok: true,
      content: reply.content,
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      model: this.model,
      finish_reason: reply.finish,
      record: { endpoint: "chat", request: {}, status: "ok", attempts: 1, elapsed_ms: 1 },
    });
  }
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

Deno.test("a summary the provider cut off at max_tokens is retried shorter, then used only when complete", async () => {
  const chat = new ScriptedChat([
    { content: "The company was founded in", finish: "length" },
    { content: "The company was founded in 1888.", finish: "stop" },
  ]);
  const outcome = await summarizeWithin({
    chat,
    task: "t",
    evidence: "e",
    space: 100,
    promptTokens: words,
    limit: 50,
  });
  assert.equal(outcome.ok, true);
  assert.equal(outcome.ok && outcome.summary, "The company was founded in 1888.");
  assert.deepEqual(chat.asked, [100, 80]);
});

Deno.test("a summary still cut off after three retries invalidates the condition and is not truncated", async () => {
  const chat = new ScriptedChat([{ content: "cut off mid", finish: "length" }]);
  const outcome = await summarizeWithin({
    chat,
    task: "t",
    evidence: "e",
    space: 100,
    promptTokens: words,
    limit: 50,
  });
  assert.equal(outcome.ok, false);
  assert.match(!outcome.ok ? outcome.reason : "", /cut off at max_tokens after 3 length retries/);
  assert.equal(outcome.attempts, 4);
  assert.equal(chat.asked.length, 4);
});

Deno.test("an over-long summary is retried with less space and invalid after three retries, never truncated", async () => {
  const long = "word ".repeat(80).trim();
  const chat = new ScriptedChat([{ content: long, finish: "stop" }]);
  const outcome = await summarizeWithin({
    chat,
    task: "t",
    evidence: "e",
    space: 100,
    promptTokens: words,
    limit: 50,
  });
  assert.equal(outcome.ok, false);
  assert.equal(!outcome.ok && outcome.summary, long);
  assert.ok(chat.asked.every((n, i) => i === 0 || n < chat.asked[i - 1]), `asked ${chat.asked}`);
});
