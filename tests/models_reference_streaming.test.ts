/**
 * The reference server as real agents meet it: the real `openai` SDK with `stream: true` over loopback HTTP
 * (content and tool-call deltas, the usage chunk), `tools`/`tool_choice`, and a file-reading tool found by its
 * schema and paged until a read returns no more.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { ChatMessage, ToolCall, ToolDefinition } from "../src/models/messages.ts";
import { parseFaultSpec } from "../src/models/reference/faults.ts";
import { findReadTool, pageOutcome } from "../src/models/reference/read_tool.ts";
import { REFERENCE_CHAT_MODEL, startReferenceServer } from "../src/models/reference/server.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();

async function withClient<T>(body: (client: OpenAI, baseUrl: string) => Promise<T>): Promise<T> {
  const server = await startReferenceServer({ counter });
  try {
    return await body(
      new OpenAI({ apiKey: "sk-test-streaming", baseURL: server.baseUrl, maxRetries: 0 }),
      server.baseUrl,
    );
  } finally {
    await server.close();
  }
}

/** Hermes' read_file schema shape: path required, 1-based offset and a limit, both optional. */
const HERMES_LIKE_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "read_file",
    description: "Read a text file with line numbers and pagination. Output format: 'LINE_NUM|CONTENT'.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to the file to read" },
        offset: { type: "integer", description: "Line number to start reading from (1-indexed)", minimum: 1 },
        limit: { type: "integer", description: "Maximum number of lines to read (default: 500)" },
      },
      required: ["path"],
    },
  },
};

/** A differently named reader: `file_path`, a 0-based `skip`-style offset, plain text pages. */
const PLAIN_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "open_document",
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        offset: { type: "integer", minimum: 0, description: "Lines to skip" },
      },
      required: ["file_path"],
    },
  },
};

/** Tools a reader must not be mistaken for (a second required parameter). */
const WRITE_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "write_file",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  },
};

const FILES: Record<string, string[]> = {
  "Alpha.txt": Array.from({ length: 1203 }, (_, i) => `Alpha line ${i + 1} about the river.`),
  "Beta.txt": ["Beta was founded in 1901.", "Beta is a town on the river."],
};

/** Hermes' framing: 500-line pages of `%6d|text`, an empty numbered line after the page's last newline. */
function hermesRead(args: { path: string; offset?: number; limit?: number }): string {
  const lines = FILES[args.path];
  if (lines === undefined) return JSON.stringify({ error: `File not found: ${args.path}` });
  const offset = args.offset ?? 1;
  const end = offset + (args.limit ?? 500) - 1;
  const shown = lines.slice(offset - 1, end);
  const numbered = [...shown, ""].map((text, i) => `${String(offset + i).padStart(6, " ")}|${text}`);
  const truncated = lines.length > end;
  return JSON.stringify({
    content: numbered.join("\n"),
    total_lines: lines.length,
    file_size: 1,
    truncated,
    ...(truncated
      ? {
        hint: `Use offset=${end + 1} to continue reading (showing ${offset}-${end} of ${lines.length} lines)`,
      }
      : {}),
    is_binary: false,
    is_image: false,
  });
}

/** A plain reader: 400 lines of text after skipping `offset`, nothing said about what follows. */
function plainRead(args: { file_path: string; offset?: number }): string {
  return (FILES[args.file_path] ?? []).slice(args.offset ?? 0, (args.offset ?? 0) + 400).join("\n");
}

const TASK = "Read every file completely, then answer.\n\nQuestion: What was founded in 1901?\n\nFiles:\n" +
  "- Alpha.txt\n- Beta.txt";

/** Joins a stream's chunks the way an agent does: content by concatenation, tool calls by index. */
async function collectStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let content = "";
  let sawContent = false;
  const calls: { id: string; name: string; arguments: string }[] = [];
  let finish: string | null = null;
  let usage: OpenAI.Completions.CompletionUsage | null | undefined;
  let chunks = 0;
  let model = "";
  for await (const chunk of stream) {
    chunks++;
    model = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (typeof choice.delta.content === "string") {
        sawContent = true;
        content += choice.delta.content;
      }
      for (const delta of choice.delta.tool_calls ?? []) {
        calls[delta.index] ??= { id: "", name: "", arguments: "" };
        if (delta.id) calls[delta.index].id = delta.id;
        if (delta.function?.name) calls[delta.index].name += delta.function.name;
        if (delta.function?.arguments) calls[delta.index].arguments += delta.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { content: sawContent ? content : null, calls, finish, usage, chunks, model };
}

Deno.test("a streamed text answer joins to the non-streamed one, with the same usage in its last chunk", async () => {
  await withClient(async (client) => {
    const messages = [
      { role: "system" as const, content: "Answer briefly." },
      {
        role: "user" as const,
        content: "The cache expires hourly. The database is Postgres. Which database is used?",
      },
    ];
    const plain = await client.chat.completions.create({ model: "m", messages });
    const stream = await client.chat.completions.create({
      model: "m",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const streamed = await collectStream(stream);
    assert.ok(streamed.chunks > 4, `content came in pieces (${streamed.chunks} chunks)`);
    assert.equal(streamed.content, plain.choices[0].message.content);
    assert.equal(streamed.finish, plain.choices[0].finish_reason);
    assert.deepEqual(streamed.usage, plain.usage);
    assert.equal(streamed.model, REFERENCE_CHAT_MODEL);
    const noUsage = await collectStream(
      await client.chat.completions.create({ model: "m", messages, stream: true }),
    );
    assert.equal(noUsage.usage, undefined, "no usage chunk unless include_usage is set");
    assert.equal(noUsage.content, plain.choices[0].message.content);
  });
});

Deno.test("a streamed tool call comes as index/id/name deltas and argument fragments equal to the plain call", async () => {
  await withClient(async (client) => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: "system", content: "You are an agent." },
      { role: "user", content: TASK },
    ];
    const tools = [WRITE_TOOL, HERMES_LIKE_TOOL] as OpenAI.Chat.ChatCompletionTool[];
    const plain = await client.chat.completions.create({ model: "m", messages, tools });
    const plainCall = plain.choices[0].message.tool_calls
      ?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    assert.equal(plain.choices[0].finish_reason, "tool_calls");
    assert.equal(plainCall.function.name, "read_file");
    assert.deepEqual(JSON.parse(plainCall.function.arguments), { path: "Alpha.txt" });
    const raw: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    const stream = await client.chat.completions.create({
      model: "m",
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) raw.push(chunk);
    const fragments = raw.flatMap((chunk) => chunk.choices.flatMap((c) => c.delta.tool_calls ?? []));
    assert.ok(fragments.length >= 2, "the arguments came in fragments");
    assert.equal(fragments[0].index, 0);
    assert.equal(fragments[0].id, plainCall.id);
    assert.equal(fragments[0].function?.name, "read_file");
    assert.ok(fragments.slice(1).every((f) => f.id === undefined && f.function?.name === undefined));
    const streamed = await collectStream((async function* () {
      yield* raw;
    })());
    assert.deepEqual(streamed.calls, [{
      id: plainCall.id,
      name: "read_file",
      arguments: plainCall.function.arguments,
    }]);
    assert.equal(streamed.finish, "tool_calls");
    assert.equal(streamed.content, null);
    assert.deepEqual(streamed.usage, plain.usage);
    assert.deepEqual(raw[raw.length - 1].choices, [], "the usage chunk has no choices");
  });
});

/** Runs the reference model as an agent over streamed turns, executing its reads with `execute`. */
async function agentLoop(
  client: OpenAI,
  tools: ToolDefinition[],
  execute: (call: ToolCall) => string,
): Promise<{ calls: ToolCall[]; answer: string | null }> {
  const messages: ChatMessage[] = [{ role: "system", content: "You are an agent." }, {
    role: "user",
    content: TASK,
  }];
  const calls: ToolCall[] = [];
  for (let turn = 0; turn < 20; turn++) {
    const stream = await client.chat.completions.create({
      model: "m",
      messages: messages as OpenAI.Chat.ChatCompletionMessageParam[],
      tools: tools as OpenAI.Chat.ChatCompletionTool[],
      stream: true,
    });
    const reply = await collectStream(stream);
    if (reply.calls.length === 0) return { calls, answer: reply.content };
    const made = reply.calls.map((c): ToolCall => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
    messages.push({ role: "assistant", content: reply.content, tool_calls: made });
    for (const call of made) {
      calls.push(call);
      messages.push({ role: "tool", tool_call_id: call.id, content: execute(call) });
    }
  }
  throw new Error("the agent did not finish in 20 turns");
}

Deno.test("the reference agent pages a Hermes-framed reader by its hints, then reads the next file, then answers", async () => {
  await withClient(async (client) => {
    const { calls, answer } = await agentLoop(
      client,
      [WRITE_TOOL, HERMES_LIKE_TOOL],
      (call) => hermesRead(JSON.parse(call.function.arguments)),
    );
    assert.deepEqual(calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]), [
      ["read_file", { path: "Alpha.txt" }],
      ["read_file", { path: "Alpha.txt", offset: 501 }],
      ["read_file", { path: "Alpha.txt", offset: 1001 }],
      ["read_file", { path: "Beta.txt" }],
    ]);
    assert.match(answer ?? "", /Beta was founded in 1901/);
  });
});

Deno.test("a reader found by its schema alone is paged with a 0-based offset until a read returns nothing", async () => {
  await withClient(async (client) => {
    const { calls } = await agentLoop(
      client,
      [PLAIN_TOOL],
      (call) => plainRead(JSON.parse(call.function.arguments)),
    );
    assert.deepEqual(calls.map((c) => JSON.parse(c.function.arguments)), [
      { file_path: "Alpha.txt" },
      { file_path: "Alpha.txt", offset: 400 },
      { file_path: "Alpha.txt", offset: 800 },
      { file_path: "Alpha.txt", offset: 1200 },
      { file_path: "Alpha.txt", offset: 1203 },
      { file_path: "Beta.txt" },
      { file_path: "Beta.txt", offset: 2 },
    ]);
    assert.ok(calls.every((c) => c.function.name === "open_document"));
  });
});

Deno.test("the reading tool is found by its schema; page outcomes read Hermes' framing and hints", () => {
  assert.equal(findReadTool([WRITE_TOOL]), undefined, "a tool with a second required parameter is no reader");
  assert.deepEqual(findReadTool([WRITE_TOOL, PLAIN_TOOL]), {
    name: "open_document",
    pathParam: "file_path",
    offsetParam: "offset",
    offsetBase: 0,
  });
  assert.deepEqual(findReadTool([HERMES_LIKE_TOOL])?.offsetBase, 1);
  assert.deepEqual(pageOutcome(hermesRead({ path: "Alpha.txt" }), 1), {
    lastLine: 500,
    more: true,
    continueAt: 501,
    error: false,
  });
  assert.deepEqual(pageOutcome(hermesRead({ path: "Beta.txt" }), 1), {
    lastLine: 2,
    more: false,
    error: false,
  });
  assert.deepEqual(pageOutcome(hermesRead({ path: "Gamma.txt" }), 1), { error: true });
});

Deno.test("tool_choice is honoured: none answers, required forces a call, a function not offered is a 400", async () => {
  await withClient(async (client, baseUrl) => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: "system", content: "You are an agent." },
      { role: "user", content: [{ type: "text", text: TASK }] },
    ];
    const tools = [HERMES_LIKE_TOOL] as OpenAI.Chat.ChatCompletionTool[];
    const none = await client.chat.completions.create({ model: "m", messages, tools, tool_choice: "none" });
    assert.equal(none.choices[0].message.tool_calls, undefined);
    assert.equal(none.choices[0].finish_reason, "stop");
    const read: OpenAI.Chat.ChatCompletionMessageParam[] = [
      ...messages,
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "c1",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"Alpha.txt"}' },
        }],
      },
      { role: "tool", tool_call_id: "c1", content: hermesRead({ path: "Alpha.txt", limit: 2000 }) },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "c2",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"Beta.txt"}' },
        }],
      },
      { role: "tool", tool_call_id: "c2", content: hermesRead({ path: "Beta.txt" }) },
    ];
    const auto = await client.chat.completions.create({ model: "m", messages: read, tools });
    assert.equal(auto.choices[0].message.tool_calls, undefined, "all read: auto answers");
    const required = await client.chat.completions.create({
      model: "m",
      messages: read,
      tools: [...tools, WRITE_TOOL as OpenAI.Chat.ChatCompletionTool],
      tool_choice: { type: "function", function: { name: "write_file" } },
      // fields real clients send, which the server must not refuse
      temperature: 0,
      parallel_tool_calls: false,
      // @ts-expect-error: a vLLM-style extra field
      chat_template_kwargs: { enable_thinking: false },
    });
    const forced = required.choices[0].message.tool_calls
      ?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    assert.equal(forced.function.name, "write_file");
    assert.deepEqual(JSON.parse(forced.function.arguments), { path: "", content: "" });
    const missing = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "m",
        messages,
        tools,
        tool_choice: { type: "function", function: { name: "nope" } },
      }),
    });
    assert.equal(missing.status, 400);
    assert.match((await missing.json()).error.message, /tool_choice: names function "nope"/);
    const badStream = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages, stream: "yes" }),
    });
    assert.equal(badStream.status, 400);
    assert.match((await badStream.json()).error.message, /stream/);
  });
});

Deno.test("a streamed request's body faults are streamed: a cut stream and a malformed event fail the client", async () => {
  for (const kind of ["truncated", "malformed"]) {
    const server = await startReferenceServer({ counter, faults: parseFaultSpec(`${kind}=1`) });
    try {
      const client = new OpenAI({ apiKey: "sk-test-streaming", baseURL: server.baseUrl, maxRetries: 0 });
      await assert.rejects(async () => {
        const stream = await client.chat.completions.create({
          model: "m",
          messages: [{ role: "user", content: "Is the port open?" }],
          stream: true,
        });
        await collectStream(stream);
      }, kind);
      assert.equal(server.stats().faults[kind as "truncated" | "malformed"], 1);
    } finally {
      await server.close();
    }
  }
});
