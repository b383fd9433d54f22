import assert from "node:assert/strict";
import { detectFormat, importTranscript } from "../src/data/transcripts/import.ts";
import { UsageError } from "../src/errors.ts";
import { toolPairingProblem } from "../src/methods/engines/tool_groups.ts";

const HERMES = new URL("./fixtures/shared_data/hermes_session_feature_impl.json", import.meta.url).pathname;
const SHAREGPT = new URL("./engines_fixtures/sample.sharegpt.jsonl", import.meta.url).pathname;
const LOCOMO = new URL("./engines_fixtures/sample.locomo.json", import.meta.url).pathname;

async function withFile(name: string, text: string, fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "engines_import_" });
  try {
    const path = `${dir}/${name}`;
    await Deno.writeTextFile(path, text);
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof UsageError, `expected UsageError, got ${error}`);
    assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("a real Hermes session imports with its tool calls and results paired", async () => {
  const transcript = await importTranscript(HERMES);
  assert.equal(transcript.format, "hermes-session");
  assert.equal(transcript.messages.length, 75);
  assert.equal(transcript.messages[0].role, "system");
  assert.equal(transcript.messages.filter((m) => m.role === "tool").length, 32);
  assert.equal(toolPairingProblem(transcript.messages), null);
  assert.equal(transcript.meta.name, "feature-impl-context-priority");
});

Deno.test("an OpenAI message list imports as a bare array and as {messages}", async () => {
  const messages = [
    { role: "system", content: "s" },
    { role: "user", content: [{ type: "text", text: "he" }, { type: "text", text: "llo" }] },
    {
      role: "assistant",
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: { a: 1 } } }],
    },
    { role: "tool", tool_call_id: "c1", content: "ok", reasoning: "ignored" },
  ];
  for (const text of [JSON.stringify(messages), JSON.stringify({ messages })]) {
    await withFile("t.json", text, async (path) => {
      const transcript = await importTranscript(path);
      assert.equal(transcript.format, "openai");
      assert.equal(transcript.messages[1].content, "hello");
      assert.equal(transcript.messages[2].content, null);
      assert.equal(transcript.messages[2].tool_calls?.[0].function.arguments, '{"a": 1}');
      assert.equal("reasoning" in transcript.messages[3], false);
    });
  }
});

Deno.test("a malformed OpenAI message names the file, the message index and the field", async () => {
  await withFile(
    "bad.json",
    JSON.stringify([{ role: "user", content: "x" }, { role: "robot", content: "y" }]),
    (path) => rejectsWith(importTranscript(path), /bad\.json: \(root\)\[1\]\.role: /),
  );
  await withFile(
    "orphan.json",
    JSON.stringify([{ role: "tool", tool_call_id: "z", content: "y" }]),
    (path) => rejectsWith(importTranscript(path), /orphan\.json: broken tool pairing: message 0/),
  );
  await withFile(
    "broken.json",
    "{not json",
    (path) => rejectsWith(importTranscript(path), /broken\.json: invalid JSON/),
  );
  await rejectsWith(importTranscript("/nonexistent/t.json"), /t\.json: not found/);
});

Deno.test("ShareGPT tool calls and responses become paired tool messages with stable ids and no think", async () => {
  const first = await importTranscript(SHAREGPT);
  const again = await importTranscript(SHAREGPT, "sharegpt");
  assert.equal(first.format, "sharegpt");
  assert.deepEqual(first.messages, again.messages);
  const roles = first.messages.map((m) => m.role);
  assert.deepEqual(roles, ["system", "user", "assistant", "tool", "tool", "assistant"]);
  const calls = first.messages[2].tool_calls!;
  assert.equal(first.messages[2].content, "Let me check both.");
  assert.deepEqual(calls.map((c) => c.function.name), ["get_weather", "terminal"]);
  assert.equal(calls[0].function.arguments, '{"city": "Paris"}');
  assert.match(calls[0].id, /^call_[0-9a-f]{16}$/);
  assert.notEqual(calls[0].id, calls[1].id);
  assert.equal(first.messages[3].tool_call_id, calls[0].id);
  assert.equal(first.messages[3].content, '{"temp_c":14,"sky":"overcast"}');
  assert.equal(first.messages[4].content, "42");
  assert.equal(first.messages[5].content, "It is 14 °C and overcast in Paris, and /srv/data holds 42 files.");
  assert.ok(first.messages.every((m) => !(m.content ?? "").includes("<think>")));
  assert.equal(toolPairingProblem(first.messages), null);
  const second = await importTranscript(SHAREGPT, "auto", { sample: 1 });
  assert.equal(second.messages.length, 2);
  assert.equal(second.meta.line, 2);
});

Deno.test("malformed ShareGPT names the line and the turn", async () => {
  const good = '{"conversations": [{"from": "human", "value": "hi"}]}';
  await withFile(
    "bad.jsonl",
    `${good}\n{"conversations": [{"from": "robot", "value": "x"}]}\n`,
    (path) =>
      rejectsWith(
        importTranscript(path, "auto", { sample: 1 }),
        /bad\.jsonl: line 2: conversations\[0\]\.from: /,
      ),
  );
  const unpaired = {
    conversations: [
      { from: "human", value: "hi" },
      { from: "gpt", value: '<tool_call>{"name": "f", "arguments": {}}</tool_call>' },
      { from: "gpt", value: "done" },
    ],
  };
  await withFile(
    "unpaired.jsonl",
    JSON.stringify(unpaired),
    (path) =>
      rejectsWith(importTranscript(path), /line 1, conversations\[2\]: tool call 'f' has no <tool_response>/),
  );
  const badCall = { conversations: [{ from: "gpt", value: "<tool_call>{oops</tool_call>" }] };
  await withFile(
    "badcall.jsonl",
    JSON.stringify(badCall),
    (path) => rejectsWith(importTranscript(path), /line 1, conversations\[0\]: <tool_call> is not JSON/),
  );
  await withFile(
    "two.jsonl",
    good,
    (path) => rejectsWith(importTranscript(path, "auto", { sample: 3 }), /sample 3 out of range/),
  );
});

Deno.test("LoCoMo sessions become turns and QA items become probes scored by LoCoMo's F1", async () => {
  const transcript = await importTranscript(LOCOMO);
  assert.equal(transcript.format, "locomo");
  const { messages, probes } = transcript;
  assert.equal(messages.length, 7);
  assert.equal(messages[0].role, "system");
  assert.equal(messages[1].role, "user");
  assert.equal(
    messages[1].content,
    "[Session 1, 1:56 pm on 8 May, 2023] Maya: Hey Tom, I finally adopted a dog last weekend!",
  );
  assert.match(messages[3].content!, /Biscuit.*\[shares an image: a photo of a beagle on a couch\]/);
  assert.equal(messages[4].role, "assistant");
  assert.match(messages[4].content!, /^\[Session 2, 10:02 am on 21 May, 2023\] Tom:/);
  const locomo = { scoring: "locomo" };
  assert.deepEqual(probes, [
    {
      question: "What is the name of Maya's dog?",
      answer: "Biscuit",
      evidence: [3],
      category: "4",
      ...locomo,
    },
    {
      question: "When does Maya walk her dog?",
      answer: "every morning at 7",
      evidence: [5],
      category: "1",
      ...locomo,
    },
    { question: "How many lessons has Tom taken?", answer: "1", evidence: [6], category: "2", ...locomo },
    {
      question: "What instrument does Maya play?",
      answer: "",
      evidence: [6],
      category: "5",
      adversarial_answer: "cello",
      ...locomo,
    },
    { question: "Where did Tom travel?", answer: "Lisbon", evidence: [], category: "3", ...locomo },
  ]);
  assert.deepEqual(transcript.notes, [
    "1 QA items without known evidence (kept)",
    "2 evidence ids not found in the conversation ignored",
  ]);
  const second = await importTranscript(LOCOMO, "locomo", { sample: 1 });
  assert.equal(second.probes[0].evidence[0], 2);
});

Deno.test("malformed LoCoMo names the sample, session and field", async () => {
  const sample = {
    conversation: { speaker_a: "A", speaker_b: "B", session_1: [{ speaker: "A", dia_id: "D1:1" }] },
    qa: [],
  };
  await withFile(
    "l.json",
    JSON.stringify(sample),
    (path) => rejectsWith(importTranscript(path), /l\.json: conversation\.session_1\[0\]\.text: /),
  );
  const stranger = {
    conversation: {
      speaker_a: "A",
      speaker_b: "B",
      session_1: [{ speaker: "C", dia_id: "D1:1", text: "x" }],
    },
    qa: [],
  };
  await withFile(
    "s.json",
    JSON.stringify([stranger]),
    (path) =>
      rejectsWith(importTranscript(path), /\[0\]conversation\.session_1\[0\]\.speaker: 'C' is neither/),
  );
});

Deno.test("an undetectable file asks for a format", async () => {
  await withFile(
    "x.json",
    JSON.stringify({ hello: 1 }),
    (path) => rejectsWith(importTranscript(path), /cannot detect the transcript format/),
  );
});

Deno.test("a ShareGPT turn whose <think> is never closed keeps only the text before it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/truncated.jsonl`;
    const record = {
      conversations: [
        { from: "system", value: "You are an agent." },
        { from: "human", value: "Check the build." },
        { from: "gpt", value: "Sure. <think>unterminated thinking that was cut off" },
      ],
    };
    await Deno.writeTextFile(file, JSON.stringify(record) + "\n");
    const imported = await importTranscript(file);
    assert.equal(imported.messages.at(-1)?.content, "Sure.");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tool-call arguments given as an object import as the text transformers' tojson prints for it", async () => {
  const call = {
    id: "c1",
    type: "function",
    function: { name: "read_file", arguments: { path: "ünï.txt", n: [1, true, null] } },
  };
  const messages = [
    { role: "user", content: "read it" },
    { role: "assistant", content: null, tool_calls: [call] },
    { role: "tool", tool_call_id: "c1", content: "text" },
  ];
  await withFile("t.json", JSON.stringify(messages), async (path) => {
    const transcript = await importTranscript(path);
    assert.equal(
      transcript.messages[1].tool_calls![0].function.arguments,
      '{"path": "ünï.txt", "n": [1, true, null]}',
    );
  });
});

Deno.test("a {messages} object with a name is an OpenAI request, not a Hermes session; Hermes' own fields decide", () => {
  const messages = [{ role: "user", content: "hi" }];
  assert.equal(detectFormat({ messages, name: "my chat" }), "openai");
  assert.equal(detectFormat({ messages, model: "m" }), "openai");
  assert.equal(detectFormat({ messages, name: "s", source: "~/.hermes/sessions/x.jsonl" }), "hermes-session");
  assert.equal(detectFormat({ messages, scrubbing_passes: [] }), "hermes-session");
});
