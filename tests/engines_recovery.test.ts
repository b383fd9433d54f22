/**
 * The +recovery arm: an engine that offers recall tools (exec+tools: or http:) serves them from the instance
 * that compacted; QA is asked from the window alone and again with the tools offered; the reference model
 * searches with the question's key words when it cannot answer from the window.
 */
import assert from "node:assert/strict";
import { createEngine } from "../src/methods/engines/create.ts";
import { findSearchTool, referenceReply, searchQuery } from "../src/models/reference/chat.ts";
import type { ChatMessage, ToolDefinition } from "../src/models/messages.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { qaMessages } from "../src/suites/engines/metrics.ts";
import { enginesReportMarkdown } from "../src/suites/engines/report.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { enginesStats } from "../src/suites/engines/stats.ts";
import { sharedCounter, startReferenceModels } from "./engines_fixtures/models.ts";
import { runCli } from "./helpers/spawn.ts";

const RECALL_ENGINE = new URL("./engines_fixtures/recall_engine.py", import.meta.url).pathname;
const SEARCH: ToolDefinition = {
  type: "function",
  function: {
    name: "recall_search",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

Deno.test("the reference model, offered a search tool, searches with the question's key words, then answers from the result", async () => {
  const counter = await sharedCounter();
  assert.deepEqual(findSearchTool([SEARCH]), { name: "recall_search", queryParam: "query" });
  assert.equal(findSearchTool([{ type: "function", function: { name: "read_file" } }]), undefined);
  const window: ChatMessage[] = [{ role: "system", content: "s" }, {
    role: "user",
    content: "Nothing here.",
  }];
  const asked = qaMessages(window, "What is the deploy token for shard 3?");
  assert.equal(searchQuery(asked), "deploy token shard 3");
  const first = referenceReply({ messages: asked, tools: [SEARCH] }, counter);
  assert.equal(first.rule, "search");
  assert.deepEqual(JSON.parse(first.tool_calls![0].function.arguments), { query: "deploy token shard 3" });
  // Without tools, or with tool_choice "none", it declines as before.
  assert.equal(referenceReply({ messages: asked }, counter).content, "NOT IN CONTEXT");
  assert.equal(
    referenceReply({ messages: asked, tools: [SEARCH], tool_choice: "none" }, counter).content,
    "NOT IN CONTEXT",
  );
  const answered = referenceReply({
    messages: [
      ...asked,
      { role: "assistant", content: null, tool_calls: first.tool_calls },
      {
        role: "tool",
        tool_call_id: first.tool_calls![0].id,
        content: "NEEDLE-003: the deploy token for shard 3 is dt-abc.",
      },
    ],
    tools: [SEARCH],
  }, counter);
  assert.equal(answered.content, "dt-abc");
  // A search that found nothing: it declines rather than searching again.
  const nothing = referenceReply({
    messages: [
      ...asked,
      { role: "assistant", content: null, tool_calls: first.tool_calls },
      { role: "tool", tool_call_id: first.tool_calls![0].id, content: "no match" },
    ],
    tools: [SEARCH],
  }, counter);
  assert.equal(nothing.content, "NOT IN CONTEXT");
});

Deno.test("an engine whose window drops the needles but whose recall tool returns them recovers them", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const generated = generateTranscript({ turns: 30, needles: 4 });
    const [r] = await runEngines({
      messages: generated.messages,
      needles: generated.needles,
      engines: [{ name: "recall", spec: `exec+tools:python3 ${RECALL_ENGINE}` }],
      repeats: 1,
      counter,
      chat: models.chat,
    });
    assert.equal(r.status, "ok", r.reason ?? "");
    assert.equal(r.needles.recall, 0, "the window holds no needle");
    assert.equal(r.qa?.recall, 0);
    assert.deepEqual(r.recovery?.tools, ["recall_search"]);
    assert.equal(r.recovery?.rounds, 1);
    assert.equal(r.recovery?.qa?.recall, 1, JSON.stringify(r.recovery?.qa?.answers));
    assert.ok(r.recovery!.qa!.recall! > r.qa!.recall!);
    assert.equal(r.recovery?.tool_calls, 4);
    assert.equal(r.recovery?.tool_errors, 0);
    // Two calls per question (the search, then the answer), and what the tool results cost.
    assert.equal(r.recovery?.usage.calls, 8);
    assert.ok(r.recovery!.extra_input_tokens > 0);
    assert.equal(r.recovery!.extra_input_tokens, r.recovery!.usage.input_tokens - r.qa_usage.input_tokens);
    // Every exchange is recorded: the window-alone questions and both calls of each recovered one.
    assert.equal(r.records.length, 4 + 8);
    const report = enginesReportMarkdown([r], {
      transcript: "generated",
      transcriptHash: "h",
      tokenizer: "qwen3",
      repeats: 1,
    });
    assert.match(report, /### Recall with recovery/);
    // Its interval too: the same bootstrap over questions as the window-alone QA recall.
    const [intervals] = enginesStats([r], { resamples: 200 }).engines;
    assert.equal(intervals.qa_recall?.mean, 0);
    assert.equal(intervals.qa_recall_recovery?.mean, 1);
    assert.match(report, /QA \+recovery \(95% CI\)/);
    assert.match(report, /\| recall \| 25% \| recall_search \| 1 \| 0\.0% \| 100\.0% \|/);
  } finally {
    await models.close();
  }
});

Deno.test("with --recovery-rounds 0, or a session that died after its reply, the recovery arm gains nothing", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const generated = generateTranscript({ turns: 24, needles: 2 });
    const base = {
      messages: generated.messages,
      needles: generated.needles,
      repeats: 0,
      counter,
      chat: models.chat,
    };
    const [off] = await runEngines({
      ...base,
      engines: [{ name: "recall", spec: `exec+tools:python3 ${RECALL_ENGINE}` }],
      recoveryRounds: 0,
    });
    assert.equal(off.status, "ok");
    assert.deepEqual(off.recovery?.tools, ["recall_search"]);
    assert.equal(off.recovery?.qa, null, "not asked");
    const [dead] = await runEngines({
      ...base,
      engines: [{ name: "dead", spec: `exec+tools:python3 ${RECALL_ENGINE} --exit-after-reply` }],
    });
    assert.equal(dead.status, "ok");
    assert.equal(dead.recovery?.qa?.recall, 0);
    assert.equal(dead.recovery?.tool_calls, 2);
    assert.equal(dead.recovery?.tool_errors, 2);
  } finally {
    await models.close();
  }
});

Deno.test("an http: engine's recall tools are called at its tool endpoint with its session id", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  const generated = generateTranscript({ turns: 24, needles: 2 });
  const seen: unknown[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const body = await request.json();
    if (url.pathname === "/compact") {
      const messages = body.messages as ChatMessage[];
      return Response.json({
        messages: [messages[0], ...messages.slice(-4)],
        tools: [SEARCH],
        session: "s-1",
      });
    }
    seen.push(body);
    if (url.pathname !== "/compact/tool" || body.op === "close") return Response.json({});
    const words = String(body.arguments.query).split(" ");
    const hit = generated.needles.find((needle) => {
      const factWords = needle.fact.toLowerCase().split(/[^a-z0-9]+/);
      return words.every((word) => factWords.includes(word));
    });
    return Response.json({ content: hit?.fact ?? "no match" });
  });
  try {
    const [r] = await runEngines({
      messages: generated.messages,
      needles: generated.needles,
      engines: [{ name: "svc", spec: `http://127.0.0.1:${server.addr.port}/compact` }],
      repeats: 0,
      counter,
      chat: models.chat,
    });
    assert.equal(r.status, "ok", r.reason ?? "");
    assert.equal(r.recovery?.qa?.recall, 1);
    assert.ok((r.qa?.recall ?? 1) < 1);
    assert.deepEqual(seen.map((b) => (b as { op: string; session: string }).op), ["tool", "tool", "close"]);
    assert.ok(seen.every((b) => (b as { session: string }).session === "s-1"));
  } finally {
    await server.shutdown();
    await models.close();
  }
});

Deno.test("engines run: the +recovery recall is in results.json and REPORT.md beside the window's, and the run verifies", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = `${dir}/r`;
    const run = await runCli([
      "engines",
      "run",
      "--reference",
      "-q",
      "--repeats",
      "0",
      "--turns",
      "24",
      "--needles",
      "2",
      "--budget",
      "10%,25%",
      "--engine",
      `recall=exec+tools:python3 ${RECALL_ENGINE}`,
      "--output",
      out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(await Deno.readTextFile(`${out}/results.json`));
    for (const row of results.engines) {
      assert.equal(row.status, "ok");
      assert.equal(row.recovery.qa.recall, 1);
      assert.ok(row.qa.recall < row.recovery.qa.recall);
    }
    const report = await Deno.readTextFile(`${out}/REPORT.md`);
    assert.match(report, /QA \+recovery/);
    const html = await Deno.readTextFile(`${out}/report.html`);
    assert.match(html, /recall \+recovery/, "the curve of the recovered recall");
    assert.match(html, /reply \+recovery/, "the explorer shows each needle's recovered answer");
    assert.equal((await runCli(["verify", out])).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an exec+tools: reply line that is not UTF-8, or an engine that never replies, fails the row with the reason", async () => {
  const counter = await sharedCounter();
  const { messages } = generateTranscript({ turns: 12, needles: 0 });
  const opts = { budgetTokens: 200, currentTokens: counter.countMessages(messages), counter };
  const bad = createEngine(
    `exec+tools:python3 -c 'import sys; sys.stdin.readline(); sys.stdout.buffer.write(b"\\xff\\n"); sys.stdout.flush()'`,
    { timeoutMs: 5_000 },
  );
  await assert.rejects(() => bad.compress(messages, opts), /not valid UTF-8/);
  const silent = createEngine(
    `exec+tools:python3 -c 'import sys, time; sys.stdin.readline(); time.sleep(30)'`,
    {
      timeoutMs: 500,
    },
  );
  await assert.rejects(() => silent.compress(messages, opts), /timed out after 500 ms/);
});
