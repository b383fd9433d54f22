import assert from "node:assert/strict";
import { importTranscript } from "../src/data/transcripts/import.ts";
import { createEngine } from "../src/methods/engines/create.ts";
import type { ContextEngine } from "../src/methods/engines/engine.ts";
import { CLEARED_TOOL_OUTPUT } from "../src/methods/engines/hermes_like.ts";
import { repairToolPairing, splitUnits, toolPairingProblem } from "../src/methods/engines/tool_groups.ts";
import type { ChatMessage } from "../src/models/messages.ts";
import { UsageError } from "../src/errors.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { sharedCounter, startReferenceModels } from "./engines_fixtures/models.ts";

const HERMES = new URL("./fixtures/shared_data/hermes_session_feature_impl.json", import.meta.url).pathname;

const call = (id: string) => ({ id, type: "function" as const, function: { name: "f", arguments: "{}" } });

Deno.test("tool groups keep an assistant call message with all its results", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "s" },
    { role: "user", content: "u" },
    { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
    { role: "tool", tool_call_id: "a", content: "ra" },
    { role: "tool", tool_call_id: "b", content: "rb" },
    { role: "assistant", content: "done" },
  ];
  const units = splitUnits(messages);
  assert.deepEqual(units.map((u) => u.messages.length), [1, 1, 3, 1]);
  assert.equal(toolPairingProblem(messages), null);
  assert.match(
    toolPairingProblem(messages.filter((_, i) => i !== 4))!,
    /message 2: tool call 'b' has no result/,
  );
  assert.match(toolPairingProblem(messages.filter((_, i) => i !== 2))!, /message 2: tool result for 'a'/);
  const repaired = repairToolPairing([messages[0], messages[3], messages[2], messages[4], messages[5]]);
  assert.equal(toolPairingProblem(repaired), null);
  assert.deepEqual(repaired.map((m) => m.role), ["system", "assistant", "tool", "tool", "assistant"]);
});

Deno.test("every built-in engine keeps tool pairs valid and fits the budget on generated and real transcripts", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const generated = generateTranscript({ turns: 60, needles: 6 });
    const hermes = await importTranscript(HERMES);
    for (const messages of [generated.messages, hermes.messages]) {
      const currentTokens = counter.countMessages(messages);
      const budgetTokens = Math.floor(currentTokens / 4);
      for (const spec of ["full", "truncate", "hermes-like", "summary", "jev", "jev+summary"]) {
        const engine: ContextEngine = createEngine(spec, { ...models, timeoutMs: 10_000 });
        const { messages: out, usage } = await engine.compress(structuredClone(messages), {
          budgetTokens,
          currentTokens,
          counter,
        });
        assert.equal(toolPairingProblem(out), null, `${spec}: ${toolPairingProblem(out)}`);
        const tokens = counter.countMessages(out);
        if (spec === "full") assert.deepEqual(out, messages);
        else assert.ok(tokens <= budgetTokens, `${spec}: ${tokens} > ${budgetTokens}`);
        assert.equal(out[0].role, "system", spec);
        // (hermes-like may fit by clearing old tool outputs alone, without a model call.)
        if (spec.includes("summary") || spec.startsWith("jev")) {
          assert.ok((usage?.calls ?? 0) >= 1, `${spec} made no model call`);
        }
      }
    }
  } finally {
    await models.close();
  }
});

Deno.test("truncate keeps the system prompt and the newest turns that fit, exactly", async () => {
  const counter = await sharedCounter();
  const { messages } = generateTranscript({ turns: 40, needles: 0 });
  const currentTokens = counter.countMessages(messages);
  const budgetTokens = Math.floor(currentTokens / 3);
  const { messages: out } = await createEngine("truncate", { timeoutMs: 1000 }).compress(messages, {
    budgetTokens,
    currentTokens,
    counter,
  });
  assert.deepEqual(out[0], messages[0]);
  assert.deepEqual(out.slice(1), messages.slice(messages.length - (out.length - 1)));
  assert.ok(counter.countMessages(out) <= budgetTokens);
  // One more unit would not have fitted.
  const units = splitUnits(messages.slice(1));
  const keptUnits = splitUnits(out.slice(1)).length;
  const bigger = [messages[0], ...units.slice(units.length - keptUnits - 1).flatMap((u) => u.messages)];
  assert.ok(counter.countMessages(bigger) > budgetTokens);
});

Deno.test("hermes-like protects head and tail, clears old tool outputs and summarizes the middle", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const { messages } = generateTranscript({ turns: 40, needles: 0 });
    const currentTokens = counter.countMessages(messages);
    const engine = createEngine("hermes-like", { chat: models.chat, timeoutMs: 1000 });
    // A roomy budget: clearing old tool outputs alone fits, no model call.
    const roomy = await engine.compress(messages, {
      budgetTokens: Math.floor(currentTokens * 0.9),
      currentTokens,
      counter,
    });
    assert.equal(roomy.usage, undefined);
    assert.ok(roomy.messages.some((m) => m.content === CLEARED_TOOL_OUTPUT));
    assert.deepEqual(roomy.messages.slice(0, 2), messages.slice(0, 2));
    assert.deepEqual(roomy.messages.at(-1), messages.at(-1));
    // A tight one: a structured summary after the head.
    const tight = await engine.compress(messages, {
      budgetTokens: Math.floor(currentTokens / 4),
      currentTokens,
      counter,
    });
    assert.deepEqual(tight.messages.slice(0, 2), messages.slice(0, 2));
    assert.match(tight.messages[2].content!, /^\[Context summary of the middle turns\]/);
    assert.deepEqual(tight.messages.at(-1), messages.at(-1));
    assert.equal(tight.usage?.calls, 1);
    assert.equal(tight.records?.length, 1);
    const request = tight.records![0].request as { messages: ChatMessage[] };
    assert.match(
      request.messages.at(-1)!.content!,
      /summary[\s\S]*Goal[\s\S]*Progress[\s\S]*Key facts[\s\S]*Files[\s\S]*Next steps/,
    );
  } finally {
    await models.close();
  }
});

Deno.test("the jev method as an engine keeps whole units in rank order while the window fits, in source order", async () => {
  const counter = await sharedCounter();
  // The units after the head (system, first user): the first tool group, the second, the last user message.
  const probabilities = [0.1, 0.9, 0.5];
  const decision = {
    model: "fixed",
    ask: (_state: string, questions: unknown[]) =>
      Promise.resolve({
        ok: true as const,
        nouls: questions.map((_, i) => probabilities[i]),
        model: "fixed",
        usage: { input_tokens: 1, output_tokens: 1 },
        records: [],
      }),
  };
  const long = "x ".repeat(400);
  const messages: ChatMessage[] = [
    { role: "system", content: "s" },
    { role: "user", content: "task" },
    { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
    { role: "tool", tool_call_id: "a", content: long },
    { role: "tool", tool_call_id: "b", content: long },
    { role: "assistant", content: "thinking", tool_calls: [call("c")] },
    { role: "tool", tool_call_id: "c", content: long },
    { role: "user", content: "next" },
  ];
  const currentTokens = counter.countMessages(messages);
  const { messages: out } = await createEngine("jev", { decision, timeoutMs: 1000 }).compress(messages, {
    budgetTokens: currentTokens - 1,
    currentTokens,
    counter,
  });
  assert.equal(toolPairingProblem(out), null);
  // The least likely unit (the first tool group) goes; the others stay whole, in source order.
  assert.deepEqual(out, [...messages.slice(0, 2), ...messages.slice(5)]);
});

Deno.test("engines that need a model say so, and unknown engines are usage errors", () => {
  assert.throws(
    () => createEngine("summary", { timeoutMs: 1 }),
    (e: unknown) => e instanceof UsageError && /chat model/.test(e.message),
  );
  assert.throws(
    () => createEngine("jev", { timeoutMs: 1 }),
    (e: unknown) => e instanceof UsageError && /decision model/.test(e.message),
  );
  assert.throws(
    () => createEngine("magic", { timeoutMs: 1 }),
    (e: unknown) => e instanceof UsageError && /unknown engine 'magic'/.test(e.message),
  );
});
