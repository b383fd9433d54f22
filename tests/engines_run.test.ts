import assert from "node:assert/strict";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { isCorrectReply, median, needleRecall, percentile } from "../src/suites/engines/metrics.ts";
import { enginesReportMarkdown, formatEnginesTable } from "../src/suites/engines/report.ts";
import { BUILTIN_ENGINES } from "../src/methods/engines/engine_names.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { sharedCounter, startReferenceModels } from "./engines_fixtures/models.ts";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { OpenAIChatClient } from "../src/models/chat_client.ts";

Deno.test("generator: same parameters give the same hash, other parameters another", () => {
  const a = generateTranscript({ turns: 30, needles: 4 });
  const b = generateTranscript({ turns: 30, needles: 4 });
  assert.equal(a.hash, b.hash);
  assert.equal(JSON.stringify(a.messages), JSON.stringify(b.messages));
  const others = [
    generateTranscript({ turns: 31, needles: 4 }),
    generateTranscript({ turns: 30, needles: 5 }),
    generateTranscript({ turns: 30, needles: 4, wordsPerMsg: 61 }),
    generateTranscript({ turns: 30, needles: 4, needleDepths: [0, 0.2, 0.4, 1] }),
    generateTranscript({ turns: 30, needles: 4, seed: "other" }),
  ];
  for (const other of others) assert.notEqual(other.hash, a.hash);
});

Deno.test("generator: needles sit at their depths in varied roles and positions with paired tool calls", () => {
  const { messages, needles, params } = generateTranscript();
  assert.equal(params.turns, 200);
  assert.equal(needles.length, 12);
  assert.deepEqual(new Set(needles.map((n) => n.role)), new Set(["user", "assistant", "tool"]));
  assert.deepEqual(new Set(needles.map((n) => n.position)), new Set(["start", "middle", "end"]));
  assert.equal(new Set(needles.map((n) => n.answer)).size, 12);
  for (const needle of needles) {
    const content = messages[needle.message_index].content!;
    assert.equal(messages[needle.message_index].role, needle.role);
    assert.ok(content.includes(needle.fact));
    if (needle.position === "start") assert.ok(content.startsWith(needle.fact));
    if (needle.position === "end") assert.ok(content.endsWith(needle.fact));
    assert.match(needle.fact, /^NEEDLE-\d{3}: the deploy token for shard \d+ is dt-[0-9a-f]{16}\.$/);
    assert.ok(Math.abs(needle.depth - params.needleDepths[needles.indexOf(needle)]) < 0.02);
  }
  assert.ok(messages.some((m) => (m.tool_calls?.length ?? 0) === 2));
  const words = messages[1].content!.split(" ").length;
  assert.equal(words, 60);
  const edge = generateTranscript({ turns: 20, needles: 2, needleDepths: [0, 1] });
  assert.equal(edge.needles[0].message_index, 1);
  assert.ok(edge.needles[1].message_index >= edge.messages.length - 3);
});

// Timing is bench/engines.ts's concern (target 5 s); the test checks what a timer cannot: a 2,000-turn
// transcript generates, keeps its early needles early, and counts.
Deno.test("generator: a 2,000-turn transcript generates with early needles and counts", async () => {
  const counter = await sharedCounter();
  const { messages, needles } = generateTranscript({ turns: 2000 });
  assert.ok(counter.countMessages(messages) > 300_000);
  assert.ok(needles.every((n) => n.message_index < messages.length / 2));
});

Deno.test("metrics: no needles means recall n/a, never 1.0; percentiles by nearest rank", () => {
  assert.equal(needleRecall([{ role: "user", content: "x" }], []).recall, null);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), 10);
  assert.equal(percentile([5], 95), 5);
  assert.ok(isCorrectReply("The token is DT-ABC.", "dt-abc"));
  assert.ok(!isCorrectReply("NOT IN CONTEXT", "dt-abc"));
  // Whole words only, and NOT IN CONTEXT never counts, whatever the gold answer is.
  assert.ok(!isCorrectReply("NOT IN CONTEXT", "No"));
  assert.ok(!isCorrectReply("NOT IN CONTEXT.", "context"));
  assert.ok(!isCorrectReply("They met at a party.", "art"));
  assert.ok(!isCorrectReply("12 or 2022", "2"));
  assert.ok(isCorrectReply("No, she did not.", "No"));
  assert.ok(isCorrectReply("In May 2022, at the lake.", "May 2022"));
});

Deno.test("runEngines measures every built-in engine with the reference model and reports it", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const { messages, needles } = generateTranscript({ turns: 40, needles: 6 });
    const progress: string[] = [];
    const results = await runEngines({
      messages,
      needles,
      engines: [...BUILTIN_ENGINES],
      repeats: 2,
      counter,
      chat: models.chat,
      decision: models.decision,
      onProgress: (p) => progress.push(`${p.engine}:${p.phase}`),
    });
    assert.deepEqual(results.map((r) => r.engine), [...BUILTIN_ENGINES]);
    const input = counter.countMessages(messages);
    for (const r of results) {
      assert.equal(r.status, "ok", `${r.engine}: ${r.reason}`);
      assert.equal(r.input_tokens, input);
      assert.equal(r.budget_tokens, Math.floor(input * 0.25));
      assert.equal(r.tool_pairing_valid, true);
      assert.equal(r.latency_ms.warm.length, 2);
      // Latency is averaged over the repeats, as well as summarised by median and p95.
      assert.equal(r.latency_ms.warm_mean, (r.latency_ms.warm[0] + r.latency_ms.warm[1]) / 2);
      assert.equal(r.latency_ms.warm_excluded_retried, 0);
      assert.ok(
        r.latency_ms.cold !== null && r.latency_ms.warm_median !== null && r.latency_ms.warm_p95 !== null,
      );
      assert.equal(r.qa?.total, 6);
      assert.equal(r.needles.total, 6);
      assert.equal(r.deterministic, true, r.engine);
      assert.equal(r.saved_tokens, input - r.output_tokens!);
    }
    const full = results[0];
    assert.equal(full.needles.recall, 1);
    assert.equal(full.saved_tokens, 0);
    assert.equal(full.within_budget, false);
    assert.ok(full.qa!.recall! >= 0.5, `reference QA recall on the full window: ${full.qa!.recall}`);
    for (const r of results.slice(1)) assert.equal(r.within_budget, true, r.engine);
    const truncate = results[1];
    assert.ok(truncate.needles.recall! < 1);
    assert.ok(results.slice(2).every((r) => r.usage!.calls >= 1));
    assert.ok(progress.includes("jev:qa") && progress.includes("jev+summary:done"));

    const table = formatEnginesTable(results);
    assert.match(table.split("\n")[0], /^engine\s+budget\s+status\s+in tok/);
    assert.equal(table.split("\n").length, 2 + results.length);
    const markdown = enginesReportMarkdown(results, {
      transcript: "generated (turns 40, needles 6)",
      transcriptHash: "abc",
      tokenizer: counter.name,
      reference: true,
      repeats: 2,
    });
    assert.match(markdown, /\| truncate \| \d+ \(25%\) \| ok \|/);
    assert.match(markdown, /\| hermes-like \(reimplementation\) \|/);
    assert.match(markdown, /HotpotQA/);
    assert.equal(markdown.includes("case and whitespace folded"), false);
    assert.match(markdown, /reference model/);
  } finally {
    await models.close();
  }
});

Deno.test("runEngines reports needle and QA recall as n/a when there are no needles", async () => {
  const counter = await sharedCounter();
  const { messages } = generateTranscript({ turns: 10, needles: 0 });
  const [result] = await runEngines({ messages, engines: ["truncate"], repeats: 1, counter });
  assert.equal(result.needles.recall, null);
  assert.equal(result.qa, null);
  assert.match(formatEnginesTable([result]), /n\/a/);
});

Deno.test("generator: default needles all sit in the early half, never in the protected tail; given depths still rule", () => {
  for (const params of [{}, { turns: 40 }, { turns: 60, needles: 20 }, { turns: 500, needles: 3 }]) {
    const { messages, needles, params: used } = generateTranscript(params);
    for (const needle of needles) {
      assert.ok(
        needle.message_index < messages.length / 2,
        `${needle.id} at ${needle.message_index} of ${messages.length}`,
      );
    }
    assert.ok(used.needleDepths.every((d) => d > 0 && d < 0.5));
  }
  const late = generateTranscript({ turns: 40, needles: 1, needleDepths: [0.9] });
  assert.ok(late.needles[0].depth > 0.8);
});

Deno.test("latency leaves out warm calls whose model calls were retried, and counts them apart", async () => {
  const counter = await sharedCounter();
  // The first attempt of every request is rate-limited (5 ms Retry-After): every compress call is retried.
  const server = await startReferenceServer({
    counter,
    faults: { rates: { "429": 1 }, first: 1 },
    retryAfterMs: 5,
  });
  try {
    const chat = new OpenAIChatClient({
      apiKey: "reference-model-no-key",
      baseURL: server.baseUrl,
      maxRetries: 3,
    });
    const { messages } = generateTranscript({ turns: 30, needles: 0 });
    const repeats = 3;
    const [retried] = await runEngines({ messages, engines: ["summary"], repeats, counter, chat, qa: false });
    assert.equal(retried.status, "ok", retried.reason ?? "");
    assert.equal(retried.latency_ms.warm_excluded_retried, repeats);
    assert.deepEqual(retried.latency_ms.warm, []);
    assert.equal(retried.latency_ms.warm_mean, null);
    assert.equal(retried.latency_ms.warm_median, null);
    assert.ok(retried.latency_ms.cold_retried_attempts >= 1);
    const markdown = enginesReportMarkdown([retried], {
      transcript: "t",
      transcriptHash: "h",
      tokenizer: "q",
      repeats,
    });
    assert.match(markdown, /Warm calls left out for retries: summary at 25%: 3\./);
    assert.match(
      markdown,
      /\| \d+(\.\d+)?\* \| - \| - \| - \|/,
      "the cold figure is marked, the warm ones empty",
    );
  } finally {
    await server.close();
  }
  // Without faults nothing is left out.
  const models = await startReferenceModels();
  try {
    const { messages } = generateTranscript({ turns: 30, needles: 0 });
    const [clean] = await runEngines({
      messages,
      engines: ["summary"],
      repeats: 3,
      counter,
      chat: models.chat,
      qa: false,
    });
    assert.equal(clean.latency_ms.warm_excluded_retried, 0);
    assert.equal(clean.latency_ms.warm.length, 3);
    assert.equal(clean.latency_ms.cold_retried_attempts, 0);
  } finally {
    await models.close();
  }
});
