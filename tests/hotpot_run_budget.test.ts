/**
 * Each hotpot method's budget behaviour, checked on a real run (CLI, reference model) with the real token
 * counter, and the invalid paths driven by stub chat models through the same suite code: a summary that cannot
 * fit after 3 retries invalidates its condition and is never truncated; a provider reporting input tokens over
 * the ceiling invalidates that answer; invalid conditions count zero and show in valid/planned. No compression
 * or context node ever has the gold labels among its inputs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ChatMessage } from "../src/models/messages.ts";
import type {
  CallRecord,
  ChatModel,
  ChatRequest,
  ChatResult,
  DecisionModel,
  DecisionResult,
} from "../src/models/types.ts";
import type { Node } from "../src/store/manifest.ts";
import { BlobStore } from "../src/store/blob_store.ts";
import { readManifest } from "../src/store/run_dir.ts";
import { aggregateHotpot } from "../src/suites/hotpot/run/aggregate.ts";
import { readCorpus } from "../src/suites/hotpot/corpus.ts";
import {
  compactedContext,
  HOTPOT_METHODS,
  type MethodInput,
  unitsById,
} from "../src/suites/hotpot/run/methods.ts";
import { DEFAULT_HOTPOT_RUN, type HotpotRunOptions, runHotpot } from "../src/suites/hotpot/run/run_suite.ts";
import type { HotpotResultRow } from "../src/suites/hotpot/run/stages/rows.ts";
import type { ModelSetup } from "../src/suites/model_setup.ts";
import { withRun } from "../src/suites/run_lifecycle.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_run_budget_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

const counter = await loadTokenCounter();
const corpusPath = join(dir, "collect", "corpus.json");
const collected = await runCli([
  "hotpot",
  "collect",
  "--questions",
  "4",
  "--output",
  join(dir, "collect"),
  "-q",
]);
assert.equal(collected.code, 0, collected.stderr);
const { bytes: corpusBytes } = await readCorpus(corpusPath);

/** A cap below the demo questions' full histories, so that every method has to choose. */
const CAP = 2000;
const RESERVE = 64;
const LIMIT = CAP - RESERVE;
const referenceRun = join(dir, "reference");
const made = await runCli([
  "hotpot",
  "run",
  "--corpus",
  corpusPath,
  "--reference",
  "--input-cap",
  String(CAP),
  "--compressions",
  "1",
  "--answers",
  "1",
  "--output",
  referenceRun,
  "-q",
]);
assert.equal(made.code, 0, made.stderr);
const manifest = await readManifest(referenceRun);
const store = new BlobStore(referenceRun);

function blob<T>(hash: string): Promise<T> {
  return store.getJson(hash) as Promise<T>;
}

function nodesOf(stage: string): Node[] {
  return manifest.nodes.filter((n) => n.stage === stage);
}

function methodOf(node: Node): string {
  return (node.params as { method: string }).method;
}

Deno.test("every non-full answer input counts at most input-cap − reserve; full may exceed and stays valid", async () => {
  const contexts = nodesOf("hotpot-context");
  assert.equal(contexts.length, 4 * HOTPOT_METHODS.length);
  let fullOver = 0;
  for (const node of contexts) {
    assert.equal(node.status, "ok", `${node.label}: ${node.reason}`);
    const messages = await blob<ChatMessage[]>(node.outputs.messages);
    const info = await blob<{ tokens: number }>(node.outputs.info);
    const tokens = counter.countMessages(messages);
    assert.equal(info.tokens, tokens, node.label);
    if (methodOf(node) === "full") {
      if (tokens > LIMIT) fullOver++;
    } else {
      assert.ok(tokens <= LIMIT, `${node.label}: ${tokens} > ${LIMIT}`);
    }
  }
  assert.ok(fullOver > 0, "some full history exceeds the cap (the cap was chosen so)");
  const results = JSON.parse(await Deno.readTextFile(join(referenceRun, "results.json")));
  for (const row of results) {
    assert.equal(row.status, "ok", `${row.method} ${row.question_id}`);
    if (row.method !== "full") assert.ok(row.input_tokens <= CAP);
  }
});

async function questionAndOrder(node: Node): Promise<{ question: MethodInput; order: string[] }> {
  const question = await blob<MethodInput>(node.inputs.question);
  const ranking = await blob<{ ok: boolean; order: string[] }>(node.inputs.ranking);
  assert.equal(ranking.ok, true);
  return { question, order: ranking.order };
}

function assertRankPrefix(kept: readonly string[], order: readonly string[], label: string): number {
  const k = kept.length;
  assert.deepEqual(
    new Set(kept),
    new Set(order.slice(0, k)),
    `${label}: kept units are the first ${k} ranked`,
  );
  return k;
}

Deno.test("jev keeps a rank prefix, and the next ranked unit would overflow the limit", async () => {
  const contexts = nodesOf("hotpot-context").filter((n) => methodOf(n) === "jev");
  assert.equal(contexts.length, 4);
  for (const node of contexts) {
    const { question, order } = await questionAndOrder(node);
    const info = await blob<{ kept: string[] }>(node.outputs.info);
    const k = assertRankPrefix(info.kept, order, node.label);
    assert.ok(k > 0 && k < order.length, `${node.label}: keeps ${k} of ${order.length}`);
    const kept = unitsById(question, order.slice(0, k));
    assert.ok(counter.countMessages(compactedContext(question, kept, "")) <= LIMIT);
    const more = unitsById(question, order.slice(0, k + 1));
    assert.ok(counter.countMessages(compactedContext(question, more, "")) > LIMIT, node.label);
  }
});

Deno.test("the fusion's retained groups are a rank prefix within 40% of the evidence space", async () => {
  const summaries = nodesOf("hotpot-summary").filter((n) => methodOf(n) === "jev+summary");
  assert.equal(summaries.length, 4);
  for (const node of summaries) {
    const { question, order } = await questionAndOrder(node);
    const summary = await blob<{ ok: boolean; kept: string[]; text: string }>(node.outputs.summary);
    assert.equal(summary.ok, true, node.label);
    const k = assertRankPrefix(summary.kept, order, node.label);
    const empty = counter.countMessages(compactedContext(question, [], ""));
    const space = LIMIT - empty;
    const keptTokens = counter.countMessages(
      compactedContext(question, unitsById(question, summary.kept), ""),
    );
    assert.ok(keptTokens - empty <= 0.4 * space, `${node.label}: ${keptTokens - empty} > 40% of ${space}`);
    const more = unitsById(question, order.slice(0, k + 1));
    assert.ok(
      counter.countMessages(compactedContext(question, more, "")) > empty + Math.floor(0.4 * space),
      `${node.label}: the next ranked unit would still fit in the 40% share`,
    );
    // The summarizer saw the retained groups and not the rest as "retained".
    const [request] = await Promise.all(
      node.requests.map((h) => blob<{ request: { messages: ChatMessage[] } }>(h)),
    );
    const prompt = request.request.messages.at(-1)!.content ?? "";
    for (const unit of unitsById(question, summary.kept)) assert.ok(prompt.includes(unit.text));
  }
});

Deno.test("no question split, compression or context node has the gold labels among its inputs", async () => {
  const goldHashes = new Set(nodesOf("hotpot-question").map((n) => n.outputs.gold));
  assert.equal(goldHashes.size, 4);
  for (const node of manifest.nodes) {
    const usesGold = Object.values(node.inputs).some((h) => goldHashes.has(h));
    assert.equal(usesGold, node.stage === "hotpot-score", node.label);
  }
  for (const node of nodesOf("hotpot-question")) {
    const question = await blob<Record<string, unknown>>(node.outputs.question);
    assert.deepEqual(Object.keys(question).sort(), [
      "context",
      "id",
      "question",
      "reason",
      "trajectory",
      "type",
      "valid",
    ]);
    const gold = await blob<{ supporting_facts: unknown[] }>(node.outputs.gold);
    assert.ok(gold.supporting_facts.length > 0);
  }
  // The compression calls' request bodies carry no gold field either.
  for (const node of [...nodesOf("hotpot-rank"), ...nodesOf("hotpot-summary")]) {
    for (const hash of node.requests) {
      const record = await blob<CallRecord>(hash);
      const body = JSON.stringify(record.request);
      assert.ok(!body.includes('"supporting_facts"') && !body.includes('"gold"'), node.label);
    }
  }
});

// ---- Stub models driving the invalid paths through the same suite code ----

/** A deterministic decision model: unit i of a request gets 1 / (i + 2), so the ranking is source order. */
class SourceOrderDecision implements DecisionModel {
  readonly model = "stub-decision";
  ask(state: string, questions: { instructions: string }[]): Promise<DecisionResult> {
    const nouls = questions.map((_, i) => 1 / (i + 2));
    const usage = { input_tokens: counter.countText(state), output_tokens: nouls.length };
    const record: CallRecord = {
      endpoint: "systemone",
      request: { state, questions },
      status: "ok",
      attempts: 1,
      elapsed_ms: 0,
      model: this.model,
      usage,
    };
    return Promise.resolve({ ok: true, nouls, model: this.model, usage, records: [record] });
  }
}

/** A chat model answering summary and answer requests by the given rules, counting its calls. */
class StubChat implements ChatModel {
  readonly model = "stub-chat";
  readonly calls = { summary: 0, answer: 0 };
  constructor(
    readonly rules: {
      summary: (request: ChatRequest) => string;
      promptTokens: (request: ChatRequest) => number;
    },
  ) {}

  complete(request: ChatRequest): Promise<ChatResult> {
    const last = request.messages.at(-1)?.content ?? "";
    const isAnswer = last.includes('"supporting_facts"');
    const content = isAnswer ? '{"answer": "yes", "supporting_facts": []}' : this.rules.summary(request);
    if (isAnswer) this.calls.answer++;
    else this.calls.summary++;
    const promptTokens = this.rules.promptTokens(request);
    const completion = counter.countText(content);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completion,
      total_tokens: promptTokens + completion,
    };
    const record: CallRecord = {
      endpoint: "chat",
      request: { messages: request.messages, max_tokens: request.max_tokens },
      response: { content },
      status: "ok",
      attempts: 1,
      elapsed_ms: 0,
      model: this.model,
      usage: { input_tokens: promptTokens, output_tokens: completion },
    };
    return Promise.resolve({ ok: true, content, usage, model: this.model, finish_reason: "stop", record });
  }
}

async function runWithStubs(name: string, chat: ChatModel, options: Partial<HotpotRunOptions> = {}) {
  const runOptions: HotpotRunOptions = {
    ...DEFAULT_HOTPOT_RUN,
    methods: [...HOTPOT_METHODS],
    compressions: 1,
    answers: 2,
    ...options,
  };
  const models: ModelSetup = {
    chat,
    decision: new SourceOrderDecision(),
    description: {
      mode: "reference",
      chat_model: chat.model,
      decision_model: "stub-decision",
      note: "stubs",
    },
    secrets: [],
    close: () => Promise.resolve(),
  };
  const path = join(dir, name);
  const finished = await withRun(
    {
      suite: "hotpot",
      output: path,
      command: ["hotpot", "run", "(test stubs)"],
      options: {},
      protocol: { suite: "hotpot", ...runOptions },
      tokenizer: { name: counter.name, hash: counter.hash },
      sources: { corpus: corpusBytes },
      quiet: true,
    },
    (context) => runHotpot(context, undefined, runOptions, models, counter),
  );
  const outcome = finished.result;
  const store = new BlobStore(path);
  const rows = JSON.parse(await store.getText(outcome.files["results.json"])) as HotpotResultRow[];
  return {
    outcome,
    rows,
    aggregate: aggregateHotpot(rows, runOptions.methods, outcome.compressionUsage),
    manifest: await readManifest(path),
    store,
  };
}

/** The evidence a summary request carries (between `<evidence>` tags in one of its messages). */
function evidenceOf(request: ChatRequest): string {
  const prompt = request.messages.map((m) => m.content ?? "").join("\n");
  const evidence = /<evidence>\n([\s\S]*?)\n<\/evidence>/.exec(prompt)?.[1];
  assert.ok(evidence, "a summary request carries <evidence>");
  return evidence;
}

Deno.test("a summary that cannot fit after 3 retries invalidates its condition, is never truncated, and counts zero", async () => {
  // Whatever max_tokens asks, the stub returns all the evidence twice: far over any space.
  const overlong = (request: ChatRequest) => `${evidenceOf(request)}\n${evidenceOf(request)}`;
  const chat = new StubChat({ summary: overlong, promptTokens: (r) => counter.countMessages(r.messages) });
  const { rows, aggregate, manifest, store } = await runWithStubs("summary-too-long", chat);

  const summaries = manifest.nodes.filter((n) => n.stage === "hotpot-summary");
  assert.equal(summaries.length, 4 * 2);
  assert.equal(chat.calls.summary, 4 * 2 * 4, "one request and 3 length retries per summary");
  for (const node of summaries) {
    assert.equal(node.status, "invalid", node.label);
    assert.match(node.reason ?? "", /after 3 length retries/);
    assert.equal(node.requests.length, 4, node.label);
    const summary = await store.getJson(node.outputs.summary) as {
      ok: boolean;
      text: string;
      kept: string[];
      attempts: number;
    };
    assert.equal(summary.ok, false);
    assert.equal(summary.attempts, 4);
    // Stored as returned (trimmed), not cut down to the space.
    const lastRecord = await store.getJson(node.requests.at(-1)!) as { response: { content: string } };
    assert.equal(summary.text, lastRecord.response.content.trim());
    const question = await store.getJson(node.inputs.question) as MethodInput;
    const kept = unitsById(question, summary.kept);
    assert.ok(counter.countMessages(compactedContext(question, kept, summary.text)) > LIMIT);
  }
  const answersOfSummaries = manifest.nodes.filter((n) =>
    n.stage === "hotpot-answer" && /method=(summary|jev\+summary) /.test(n.label)
  );
  assert.equal(answersOfSummaries.length, 4 * 2 * 2);
  for (const node of answersOfSummaries) {
    assert.equal(node.status, "invalid", node.label);
    assert.deepEqual(node.requests, [], `${node.label}: no answer is asked for an invalid context`);
  }
  assert.equal(chat.calls.answer, 4 * 2 * 2, "only full and jev are answered");
  for (const a of aggregate) {
    assert.equal(a.planned, 4 * 2, a.method);
    const invalid = a.method === "summary" || a.method === "jev+summary";
    assert.equal(a.valid, invalid ? 0 : 8, a.method);
    if (invalid) {
      for (const value of Object.values(a.metrics)) assert.equal(value, 0, a.method);
      assert.equal(a.sp_survival, 0);
    }
  }
  assert.equal(rows.filter((r) => r.status === "invalid").length, 16);
});

Deno.test("a provider reporting input tokens over the ceiling invalidates that answer (full excepted)", async () => {
  const cap = DEFAULT_HOTPOT_RUN.inputCap;
  const chat = new StubChat({
    summary: (request) => evidenceOf(request).split("\n").slice(0, 3).join("\n"),
    promptTokens: (request) =>
      (request.messages.at(-1)?.content ?? "").includes('"supporting_facts"')
        ? cap + 1
        : counter.countMessages(request.messages),
  });
  const { aggregate, manifest } = await runWithStubs("provider-overrun", chat);
  const answers = manifest.nodes.filter((n) => n.stage === "hotpot-answer");
  assert.equal(answers.length, 4 * 4 * 2);
  for (const node of answers) {
    assert.equal(node.requests.length, 1, node.label);
    if (/method=full /.test(node.label)) {
      assert.equal(node.status, "ok", node.label);
    } else {
      assert.equal(node.status, "invalid", node.label);
      assert.equal(node.reason, `provider counted ${cap + 1} input tokens, over the ${cap} ceiling`);
    }
  }
  // Every compacted context itself was within the limit by our count: only the provider's figure failed.
  for (const node of manifest.nodes.filter((n) => n.stage === "hotpot-context")) {
    assert.equal(node.status, "ok");
  }
  assert.deepEqual(aggregate.map((a) => [a.method, a.valid, a.planned]), [
    ["full", 8, 8],
    ["jev", 0, 8],
    ["summary", 0, 8],
    ["jev+summary", 0, 8],
  ]);
  for (const a of aggregate.filter((a) => a.method !== "full")) assert.equal(a.metrics.em, 0);
});
