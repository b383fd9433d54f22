/**
 * Linearity of the built-in engines in messages: one cold compress call of every built-in engine on
 * generated transcripts of N short turns (user/assistant alternating, a tool group every 10th turn), N =
 * 10,000 and 100,000 by default, the reference model over loopback, budget 25% of the transcript's tokens.
 * Prints seconds per engine and N and the ratio of the largest N to the smallest (linear: ratio ≈ N ratio).
 *
 * Run: `deno run -A bench/engines_linear.ts [N ...]`
 *
 * @module
 */
import { OpenAIChatClient } from "../src/models/chat_client.ts";
import { SystemOneClient } from "../src/models/decision_client.ts";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { createEngine } from "../src/methods/engines/create.ts";
import { BUILTIN_ENGINES } from "../src/methods/engines/engine_names.ts";
import type { ChatMessage } from "../src/models/messages.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";

const sizes = Deno.args.filter((arg) => /^\d+$/.test(arg)).map(Number);
const only = Deno.args.filter((arg) => !/^\d+$/.test(arg));
const counts = sizes.length > 0 ? sizes : [10_000, 100_000];
const engines = only.length > 0 ? only : [...BUILTIN_ENGINES];

/** N short turns: user and assistant alternating, every 10th turn an assistant tool call and its result. */
function shortTurns(n: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: "You are a helpful agent." }];
  for (let i = 0; i < n; i++) {
    if (i % 10 === 9) {
      const id = `call_${i}`;
      messages.push({
        role: "assistant",
        content: "",
        tool_calls: [{ id, type: "function", function: { name: "read", arguments: `{"n":${i}}` } }],
      });
      messages.push({ role: "tool", tool_call_id: id, content: `result ${i}: value ${i * 7}` });
    } else messages.push({ role: i % 2 === 0 ? "user" : "assistant", content: `short turn ${i}` });
  }
  return messages;
}

const counter = await loadTokenCounter();
const server = await startReferenceServer({ counter });
try {
  const chat = new OpenAIChatClient({ apiKey: "bench-key-0f3a9", baseURL: server.baseUrl });
  const decision = new SystemOneClient({ apiKey: "bench-key-0f3a9", baseURL: server.baseUrl });
  const seconds: Record<string, number[]> = {};
  for (const n of counts) {
    const messages = shortTurns(n);
    const currentTokens = counter.countMessages(messages);
    const budgetTokens = Math.floor(currentTokens / 4);
    for (const name of engines) {
      const engine = createEngine(name, { chat, decision, timeoutMs: 600_000 });
      await engine.prepare?.();
      const started = performance.now();
      const result = await engine.compress(messages, { budgetTokens, currentTokens, counter });
      const took = (performance.now() - started) / 1000;
      (seconds[name] ??= []).push(took);
      console.log(
        `${name.padEnd(12)} ${String(messages.length).padStart(7)} messages: ${took.toFixed(2)} s ` +
          `(${result.messages.length} out, ${counter.countMessages(result.messages)}/${budgetTokens} tokens)`,
      );
    }
  }
  if (counts.length > 1) {
    const factor = counts[counts.length - 1] / counts[0];
    for (const [name, times] of Object.entries(seconds)) {
      const ratio = times[times.length - 1] / Math.max(times[0], 1e-3);
      console.log(`${name.padEnd(12)} ${factor}x messages: ${ratio.toFixed(1)}x time`);
    }
  }
} finally {
  await server.close();
}
