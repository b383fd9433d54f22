/**
 * The framework engines run the real npm libraries (LangChain's trimMessages and summarization middleware,
 * LlamaIndex's ChatSummaryMemoryBuffer) pinned in deno.json, with this program's token counter and its chat
 * model (the reference model over loopback HTTP).
 */
import assert from "node:assert/strict";
import { importTranscript } from "../src/data/transcripts/import.ts";
import { createEngine } from "../src/methods/engines/create.ts";
import { EngineError } from "../src/methods/engines/engine.ts";
import {
  LANGCHAIN,
  LANGCHAIN_CORE,
  LLAMAINDEX_CORE,
} from "../src/methods/engines/frameworks/framework_engines.ts";
import { toolPairingProblem } from "../src/methods/engines/tool_groups.ts";
import { OpenAIChatClient } from "../src/models/chat_client.ts";
import type { ChatMessage } from "../src/models/messages.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { engineLabel, engineNotes } from "../src/suites/engines/report.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { sharedCounter, startReferenceModels } from "./engines_fixtures/models.ts";

const HERMES = new URL("./fixtures/shared_data/hermes_session_feature_impl.json", import.meta.url).pathname;

/** True when `window` ends with `tail` of `input`, message for message (the very same messages). */
function endsWithSuffixOf(window: ChatMessage[], input: ChatMessage[], from: number): boolean {
  const kept = window.slice(from);
  const start = input.length - kept.length;
  return kept.every((message, i) => JSON.stringify(message) === JSON.stringify(input[start + i]));
}

Deno.test("deno.json and deno.lock pin exactly the library versions the rows name", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const lock = await Deno.readTextFile(new URL("../deno.lock", import.meta.url));
  assert.equal(config.imports["@langchain/core/"], `npm:/@langchain/core@${LANGCHAIN_CORE.version}/`);
  assert.equal(config.imports["langchain"], `npm:langchain@${LANGCHAIN.version}`);
  assert.equal(config.imports["@llamaindex/core/"], `npm:/@llamaindex/core@${LLAMAINDEX_CORE.version}/`);
  for (const library of [LANGCHAIN_CORE, LANGCHAIN, LLAMAINDEX_CORE]) {
    assert.ok(lock.includes(`"${library.name}@${library.version}`), `${library.name} is locked`);
  }
  assert.equal(config.nodeModulesDir, "none");
});

Deno.test("langchain-trim keeps the system prompt and the newest messages from a user message on, within the budget", async () => {
  const counter = await sharedCounter();
  const generated = generateTranscript({ turns: 24, needles: 4 });
  const hermes = await importTranscript(HERMES);
  for (const messages of [generated.messages, hermes.messages]) {
    const currentTokens = counter.countMessages(messages);
    const budgetTokens = Math.floor(currentTokens / 3);
    const engine = createEngine("langchain-trim", { timeoutMs: 10_000 });
    assert.equal(engine.kind, "library");
    assert.equal(engine.library, `@langchain/core ${LANGCHAIN_CORE.version}`);
    await engine.prepare?.();
    const { messages: out, usage } = await engine.compress(structuredClone(messages), {
      budgetTokens,
      currentTokens,
      counter,
    });
    assert.equal(usage, undefined, "no model call");
    assert.equal(out[0].role, "system");
    assert.equal(out[1].role, "user", "the window starts on a user message");
    assert.ok(counter.countMessages(out) <= budgetTokens, `${counter.countMessages(out)} > ${budgetTokens}`);
    assert.equal(toolPairingProblem(out), null);
    assert.ok(endsWithSuffixOf(out, messages, 1), "the newest messages, unchanged");
    assert.ok(out.length < messages.length);
  }
});

Deno.test("langchain-summary and llamaindex-summary summarize with the program's chat model, every call recorded", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const messages = generateTranscript({ turns: 40, needles: 4 }).messages;
    const currentTokens = counter.countMessages(messages);
    const budgetTokens = Math.floor(currentTokens / 4);
    const opts = { budgetTokens, currentTokens, counter };

    const langchain = createEngine("langchain-summary", { ...models, timeoutMs: 10_000 });
    assert.equal(
      langchain.library,
      `langchain ${LANGCHAIN.version}, @langchain/core ${LANGCHAIN_CORE.version}`,
    );
    const lc = await langchain.compress(structuredClone(messages), opts);
    assert.equal(lc.messages[0].role, "system");
    assert.deepEqual(lc.messages[0], messages[0], "the system prompt is held apart and put back");
    assert.equal(lc.messages[1].role, "user");
    assert.match(lc.messages[1].content ?? "", /^Here is a summary of the conversation to date:\n\n\S/);
    assert.ok(endsWithSuffixOf(lc.messages, messages, 2), "the preserved messages are the newest, unchanged");
    assert.equal(toolPairingProblem(lc.messages), null);
    assert.equal(lc.usage?.calls, 1);
    assert.equal(lc.records?.length, 1);
    assert.ok((lc.usage?.input_tokens ?? 0) > 0);
    assert.ok(counter.countMessages(lc.messages) < currentTokens);

    const llama = createEngine("llamaindex-summary", { ...models, timeoutMs: 10_000 });
    assert.equal(llama.library, `@llamaindex/core ${LLAMAINDEX_CORE.version}`);
    const li = await llama.compress(structuredClone(messages), opts);
    // The generated transcript ends on an assistant reply: LlamaIndex keeps the system prompt and its summary.
    assert.deepEqual(li.messages.map((m) => m.role), ["system", "system"]);
    assert.deepEqual(li.messages[0], messages[0]);
    assert.match(li.messages[1].content ?? "", /^Summary of the conversation so far: \S/);
    assert.equal(li.usage?.calls, 1);
    assert.equal(li.records?.length, 1);
    assert.ok(counter.countMessages(li.messages) <= budgetTokens);
  } finally {
    await models.close();
  }
});

Deno.test("a failed summary call fails the framework engine's row, with the exchange recorded", async () => {
  const counter = await sharedCounter();
  // A real client aimed at a loopback port nothing listens on.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const chat = new OpenAIChatClient({ apiKey: "x", baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  const messages = generateTranscript({ turns: 30, needles: 2 }).messages;
  const currentTokens = counter.countMessages(messages);
  for (const spec of ["langchain-summary", "llamaindex-summary"]) {
    const engine = createEngine(spec, { chat, timeoutMs: 10_000 });
    await assert.rejects(
      () =>
        engine.compress(structuredClone(messages), {
          budgetTokens: currentTokens >> 2,
          currentTokens,
          counter,
        }),
      (error: unknown) =>
        error instanceof EngineError && /summary call failed/.test(error.message) &&
        error.records.length === 1,
      spec,
    );
  }
});

Deno.test("the summarizing framework engines need a chat model", () => {
  for (const spec of ["langchain-summary", "llamaindex-summary"]) {
    assert.throws(() => createEngine(spec, { timeoutMs: 1000 }), /needs a chat model/);
  }
});

Deno.test("a framework engine's row names its library and version, and its budget note reaches the report", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const generated = generateTranscript({ turns: 24, needles: 2 });
    const results = await runEngines({
      messages: generated.messages,
      needles: generated.needles,
      engines: ["langchain-trim", "llamaindex-summary"],
      repeats: 1,
      counter,
      chat: models.chat,
      qa: false,
    });
    assert.deepEqual(results.map((r) => [r.status, r.kind, r.tool_pairing_valid]), [
      ["ok", "library", true],
      ["ok", "library", true],
    ]);
    assert.equal(engineLabel(results[0]), `langchain-trim (@langchain/core ${LANGCHAIN_CORE.version})`);
    assert.equal(results[0].note, null);
    assert.match(results[1].note ?? "", /counts message text/);
    assert.deepEqual(engineNotes(results), [`${engineLabel(results[1])}: ${results[1].note}`]);
  } finally {
    await models.close();
  }
});

Deno.test("the libraries' own limits are reported, never patched: trimMessages keeps nothing of a long tool loop, LlamaIndex orphans a last tool result", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    // One task message, then a tool loop: no suffix starting on a user message fits a quarter of it.
    const loop: ChatMessage[] = [
      { role: "system", content: "You are an agent." },
      { role: "user", content: "Read the files and answer." },
    ];
    for (let i = 0; i < 12; i++) {
      const id = `call_${i}`;
      loop.push({
        role: "assistant",
        content: null,
        tool_calls: [{
          id,
          type: "function",
          function: { name: "read_file", arguments: `{"path":"f${i}"}` },
        }],
      });
      loop.push({
        role: "tool",
        tool_call_id: id,
        content: `File ${i} says the value ${i} is ${i * 7}. `.repeat(8),
      });
    }
    const currentTokens = counter.countMessages(loop);
    const opts = { budgetTokens: Math.floor(currentTokens / 4), currentTokens, counter };
    await assert.rejects(
      () => createEngine("langchain-trim", { timeoutMs: 1000 }).compress(structuredClone(loop), opts),
      (error: unknown) => error instanceof EngineError && /kept no message/.test(error.message),
    );
    const [llama] = await runEngines({
      messages: loop,
      engines: ["llamaindex-summary"],
      repeats: 0,
      counter,
      chat: models.chat,
      qa: false,
    });
    // LlamaIndex holds a tool result as a user message and keeps the last one after its summary.
    assert.equal(llama.status, "failed");
    assert.equal(llama.tool_pairing_valid, false);
    assert.match(llama.reason ?? "", /call_11/);
  } finally {
    await models.close();
  }
});
