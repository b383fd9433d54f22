/**
 * Built-in engines on the shapes real agent sessions have: one task followed by a tool loop that ends with a
 * tool result, a system prompt alone, and inputs already smaller than any summary would be.
 */
import assert from "node:assert/strict";
import { createEngine } from "../src/methods/engines/create.ts";
import type { ChatMessage } from "../src/models/messages.ts";
import { runEngines, validateEngineOutput } from "../src/suites/engines/run.ts";
import { sharedCounter, startReferenceModels } from "./engines_fixtures/models.ts";

function toolLoop(steps: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the failing build in the payments service." },
  ];
  for (let i = 0; i < steps; i++) {
    const id = `call_${i}`;
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{
        id,
        type: "function",
        function: { name: "read_file", arguments: `{"path":"src/f${i}.ts"}` },
      }],
    });
    messages.push({
      role: "tool",
      tool_call_id: id,
      content: `export const value${i} = ${i};\n`.repeat(40) +
        `// file ${i} mentions the retry budget ${i * 7}`,
    });
  }
  return messages;
}

Deno.test("summary and hermes-like keep tool pairs valid on a one-task tool loop that ends with a tool result", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const messages = toolLoop(12);
    const current = counter.countMessages(messages);
    for (const spec of ["summary", "hermes-like", "truncate", "jev", "jev+summary"]) {
      const engine = createEngine(spec, { chat: models.chat, decision: models.decision, timeoutMs: 10_000 });
      const out = await engine.compress(structuredClone(messages), {
        budgetTokens: Math.floor(current / 4),
        currentTokens: current,
        counter,
      });
      const check = validateEngineOutput(out.messages, current, counter);
      assert.ok(check.ok, `${spec}: ${!check.ok ? check.reason : ""}`);
    }
  } finally {
    await models.close();
  }
});

Deno.test("engines never grow a tiny window: a system prompt alone, or a short exchange, stays as small", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const inputs: ChatMessage[][] = [
      [{ role: "system", content: "You are a coding agent with a long system prompt. ".repeat(3) }],
      [{ role: "system", content: "Agent." }, { role: "user", content: "Say hi." }],
    ];
    for (const messages of inputs) {
      const current = counter.countMessages(messages);
      for (const spec of ["summary", "hermes-like"]) {
        const engine = createEngine(spec, {
          chat: models.chat,
          decision: models.decision,
          timeoutMs: 10_000,
        });
        const out = await engine.compress(structuredClone(messages), {
          budgetTokens: 5,
          currentTokens: current,
          counter,
        });
        const check = validateEngineOutput(out.messages, current, counter);
        assert.ok(check.ok, `${spec} on ${messages.length} message(s): ${!check.ok ? check.reason : ""}`);
      }
    }
  } finally {
    await models.close();
  }
});

Deno.test("a failed decision call inside the jev engine is recorded with the engine's failure, not dropped", async () => {
  const counter = await sharedCounter();
  const record = {
    endpoint: "systemone" as const,
    request: {},
    status: "failed" as const,
    error: "HTTP 500",
    attempts: 4,
    elapsed_ms: 3,
  };
  const decision = {
    model: "failing",
    ask: () => Promise.resolve({ ok: false as const, error: "HTTP 500 after 4 attempts", records: [record] }),
  };
  const [result] = await runEngines({
    messages: toolLoop(6),
    engines: ["jev"],
    repeats: 0,
    counter,
    decision,
    budgetTokens: 200,
    qa: false,
  });
  assert.equal(result.status, "failed");
  assert.match(result.reason ?? "", /decision model call failed: HTTP 500/);
  assert.deepEqual(result.records, [record]);
});
