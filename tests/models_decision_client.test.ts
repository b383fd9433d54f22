import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { splitQuestionBatches, systemOneBody } from "../src/models/decision_batches.ts";
import { SystemOneClient, type SystemOneClientOptions } from "../src/models/decision_client.ts";
import { parseFaultSpec } from "../src/models/reference/faults.ts";
import {
  REFERENCE_DECISION_MODEL,
  referenceNouls,
  startReferenceServer,
} from "../src/models/reference/server.ts";
import { retryAfterMs, retryDelayMs } from "../src/models/retry_delay.ts";
import type { CallRecord, DecisionResult, NoulQuestion } from "../src/models/types.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();
const API_KEY = "sk-test-SECRET";
const allRecords: CallRecord[] = [];

const STATE = "Find why customers were charged twice after the deploy.";
const QUESTIONS: NoulQuestion[] = [
  { type: "noul", instructions: "Is this unit useful? The deploy changed the charge retry logic." },
  { type: "noul", instructions: "Is this unit useful? The office coffee machine was repaired." },
  { type: "noul", instructions: "Is this unit useful? Customers report being charged twice." },
];

function keep(result: DecisionResult): DecisionResult {
  allRecords.push(...result.records);
  return result;
}

async function withServer<T>(
  options: { faults?: string; retryAfterMs?: number },
  body: (baseUrl: string) => Promise<T>,
): Promise<T> {
  const server = await startReferenceServer({
    counter,
    faults: options.faults ? parseFaultSpec(options.faults) : undefined,
    retryAfterMs: options.retryAfterMs ?? 5,
  });
  try {
    return await body(server.baseUrl);
  } finally {
    await server.close();
  }
}

function client(baseURL: string, options: Partial<SystemOneClientOptions> = {}): SystemOneClient {
  return new SystemOneClient({ apiKey: API_KEY, baseURL, baseDelayMs: 5, maxDelayMs: 50, ...options });
}

Deno.test("decision round trip returns one noul per question in order, with model, usage and a record", async () => {
  await withServer({}, async (baseUrl) => {
    const seen: { auth: string | null; body: unknown }[] = [];
    const result = keep(
      await client(baseUrl, {
        fetch: async (input, init) => {
          seen.push({
            auth: new Headers(init?.headers).get("authorization"),
            body: JSON.parse(String(init?.body)),
          });
          return await fetch(input, init);
        },
      }).ask(STATE, QUESTIONS),
    );
    assert.ok(result.ok, !result.ok ? result.error : "");
    assert.deepEqual(result.nouls, referenceNouls(STATE, QUESTIONS.map((q) => q.instructions)));
    assert.ok(result.nouls[0] > result.nouls[1] && result.nouls[2] > result.nouls[1]);
    assert.equal(result.model, REFERENCE_DECISION_MODEL);
    assert.equal(result.usage.output_tokens, 3);
    assert.equal(result.records.length, 1);
    assert.equal(result.records[0].attempts, 1);
    assert.equal(result.records[0].status, "ok");
    assert.deepEqual(seen, [{
      auth: `Bearer ${API_KEY}`,
      body: { model: "jev-latest", state: STATE, questions: QUESTIONS },
    }]);
  });
});

Deno.test("batches respect the question cap and the exact body byte limit", () => {
  const questions: NoulQuestion[] = Array.from({ length: 10 }, (_, i) => ({
    type: "noul",
    instructions: `question ${i} é`,
  }));
  const byCount = splitQuestionBatches("m", "s", questions, { maxQuestions: 4, maxBodyBytes: 1e9 });
  assert.deepEqual(byCount.map((b) => [b.start, b.end]), [[0, 4], [4, 8], [8, 10]]);
  for (const batch of byCount) {
    const bytes = new TextEncoder().encode(systemOneBody("m", "s", questions.slice(batch.start, batch.end)));
    assert.equal(batch.bodyBytes, bytes.length, "byte count is exact");
  }
  const three = new TextEncoder().encode(systemOneBody("m", "s", questions.slice(0, 3))).length;
  const byBytes = splitQuestionBatches("m", "s", questions, { maxQuestions: 100, maxBodyBytes: three });
  assert.deepEqual(byBytes.map((b) => b.end - b.start), [3, 3, 3, 1]);
  assert.ok(byBytes.every((b) => b.bodyBytes <= three));
  assert.deepEqual(splitQuestionBatches("m", "s", [], { maxQuestions: 4, maxBodyBytes: 100 }), []);
  assert.throws(
    () => splitQuestionBatches("m", "s", questions, { maxQuestions: 4, maxBodyBytes: 30 }),
    /question 0 alone makes a \d+-byte body, over the 30-byte limit/,
  );
});

Deno.test("a question set that fits one body is one batch of that body's exact size, even at the limit", () => {
  const questions: NoulQuestion[] = Array.from({ length: 7 }, (_, i) => ({
    type: "noul",
    instructions: `question ${i} é € \u{1f600} "quoted" \n`.repeat(i + 1),
  }));
  const whole = new TextEncoder().encode(systemOneBody("m", "state ü", questions)).length;
  const at = splitQuestionBatches("m", "state ü", questions, { maxQuestions: 7, maxBodyBytes: whole });
  assert.deepEqual(at, [{ start: 0, end: 7, bodyBytes: whole }]);
  // One byte less, or one question fewer allowed: split, each batch's size exact and within the limit.
  for (
    const limits of [{ maxQuestions: 7, maxBodyBytes: whole - 1 }, { maxQuestions: 6, maxBodyBytes: whole }]
  ) {
    const batches = splitQuestionBatches("m", "state ü", questions, limits);
    assert.ok(batches.length > 1, JSON.stringify(limits));
    assert.deepEqual([batches[0].start, batches.at(-1)!.end], [0, 7]);
    for (const batch of batches) {
      const body = systemOneBody("m", "state ü", questions.slice(batch.start, batch.end));
      assert.equal(batch.bodyBytes, new TextEncoder().encode(body).length);
      assert.ok(batch.bodyBytes <= limits.maxBodyBytes && batch.end - batch.start <= limits.maxQuestions);
    }
  }
});

Deno.test("a large question set is sent in batches and the answers come back in question order", async () => {
  const questions: NoulQuestion[] = Array.from({ length: 23 }, (_, i) => ({
    type: "noul",
    instructions: i % 3 === 0 ? `unit ${i}: charged twice after the deploy` : `unit ${i}: unrelated note`,
  }));
  await withServer({}, async (baseUrl) => {
    const whole = keep(await client(baseUrl).ask(STATE, questions));
    const split = keep(await client(baseUrl, { maxQuestionsPerBatch: 5 }).ask(STATE, questions));
    assert.ok(whole.ok && split.ok);
    assert.equal(split.records.length, 5);
    assert.deepEqual(split.records.map((r) => (r.request as { questions: unknown[] }).questions.length), [
      5,
      5,
      5,
      5,
      3,
    ]);
    assert.equal(split.nouls.length, 23);
    for (let i = 0; i < 23; i++) assert.equal(split.nouls[i] > 0, i % 3 === 0, `question ${i}`);
  });
});

for (const kind of ["429", "500", "drop", "hang"] as const) {
  Deno.test(`decision retries a ${kind} fault and then succeeds`, async () => {
    await withServer({ faults: `${kind}=1,first=1` }, async (baseUrl) => {
      const result = keep(await client(baseUrl, { timeoutMs: 300 }).ask(STATE, QUESTIONS));
      assert.ok(result.ok, !result.ok ? result.error : "");
      assert.equal(result.records[0].attempts, 2);
    });
  });
}

for (
  const [kind, reason] of [
    ["malformed", /malformed JSON response/],
    ["truncated", /truncated response body/],
    ["schema", /does not match the System One schema: answers\.0\.noul/],
  ] as const
) {
  Deno.test(`decision retries a ${kind} 200 body like a 500 and then succeeds`, async () => {
    await withServer({ faults: `${kind}=1,first=2` }, async (baseUrl) => {
      const result = keep(await client(baseUrl).ask(STATE, QUESTIONS));
      assert.ok(result.ok, !result.ok ? result.error : "");
      assert.equal(result.records[0].attempts, 3);
      assert.equal(result.records[0].status, "ok");
      assert.equal(result.records[0].attempt_errors?.length, 2);
      for (const cause of result.records[0].attempt_errors!) assert.match(cause, reason);
    });
  });

  Deno.test(`decision records every attempt's cause when a ${kind} body never stops`, async () => {
    await withServer({ faults: `${kind}=1` }, async (baseUrl) => {
      const result = keep(await client(baseUrl, { maxAttempts: 3 }).ask(STATE, QUESTIONS));
      assert.ok(!result.ok);
      assert.match(result.error, reason);
      assert.match(result.error, /retries exhausted after 3 attempts/);
      assert.equal(result.records.length, 1);
      assert.equal(result.records[0].status, "failed");
      assert.equal(result.records[0].attempts, 3);
      assert.equal(result.records[0].attempt_errors?.length, 3);
      for (const cause of result.records[0].attempt_errors!) assert.match(cause, reason);
    });
  });
}

Deno.test("decision gives up after its attempts and names the last problem", async () => {
  await withServer({ faults: "500=1" }, async (baseUrl) => {
    const result = keep(await client(baseUrl, { maxAttempts: 3 }).ask(STATE, QUESTIONS));
    assert.ok(!result.ok);
    assert.match(result.error, /HTTP 500: .*\(retries exhausted after 3 attempts\)/);
    assert.equal(result.records[0].attempts, 3);
    assert.deepEqual(result.records[0].attempt_errors?.map((cause) => cause.slice(0, 8)), [
      "HTTP 500",
      "HTTP 500",
      "HTTP 500",
    ]);
  });
});

Deno.test("one failed batch fails the whole call and names the batch", async () => {
  await withServer({ faults: "schema=0.5" }, async (baseUrl) => {
    // One attempt per batch: with schema faults at rate 0.5, some batch of six fails.
    const questions: NoulQuestion[] = Array.from(
      { length: 12 },
      (_, i) => ({ type: "noul", instructions: `q${i}` }),
    );
    const result = keep(
      await client(baseUrl, { maxQuestionsPerBatch: 2, maxAttempts: 1 }).ask(STATE, questions),
    );
    assert.ok(!result.ok);
    assert.match(result.error, /^batch \d of 6 \(questions \d+-\d+\): response does not match/);
    assert.equal(result.records.length, 6);
  });
});

Deno.test("decision honours Retry-After, and backoff doubles without it", async () => {
  await withServer({ faults: "429=1,first=1", retryAfterMs: 300 }, async (baseUrl) => {
    const started = performance.now();
    const result = keep(await client(baseUrl, { maxDelayMs: 5000 }).ask(STATE, QUESTIONS));
    assert.ok(result.ok);
    assert.ok(performance.now() - started >= 290);
  });
  assert.equal(retryAfterMs(new Headers({ "retry-after": "2" })), 2000);
  assert.equal(retryAfterMs(new Headers({ "retry-after-ms": "15", "retry-after": "2" })), 15);
  assert.equal(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 1970 00:00:10 GMT" }), 4000), 6000);
  assert.equal(retryAfterMs(new Headers()), undefined);
  const backoff = { baseDelayMs: 100, maxDelayMs: 350 };
  assert.deepEqual([1, 2, 3].map((n) => retryDelayMs(n, backoff)), [100, 200, 350]);
  assert.equal(retryDelayMs(1, backoff, 10_000), 350);
});

Deno.test("a reply that skips a question is retried, then fails the call", async () => {
  const partial = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({
      model: "jev-partial",
      answers: [{ type: "noul", noul: 0.5 }],
      usage: { input_tokens: 1, output_tokens: 1 },
    }));
  });
  await new Promise<void>((resolve) => partial.listen(0, "127.0.0.1", resolve));
  try {
    const port = (partial.address() as AddressInfo).port;
    const result = keep(await client(`http://127.0.0.1:${port}/v1`).ask(STATE, QUESTIONS));
    assert.ok(!result.ok);
    assert.match(result.error, /answered 1 of 3 questions .*retries exhausted after 4 attempts/);
    assert.equal(result.records[0].attempts, 4);
  } finally {
    await new Promise((resolve) => partial.close(resolve));
  }
});

Deno.test("a reply whose model echoes the key fails at once (response_contains_key); the key never reaches a record", async () => {
  const echo = createServer((request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({
      model: `jev-echo ${request.headers.authorization}`,
      answers: QUESTIONS.map(() => ({ type: "noul", noul: 0.5 })),
      usage: { input_tokens: 1, output_tokens: 1 },
    }));
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  try {
    const port = (echo.address() as AddressInfo).port;
    const result = keep(await client(`http://127.0.0.1:${port}/v1`).ask(STATE, QUESTIONS));
    assert.ok(!result.ok);
    assert.match(result.error, /^response_contains_key: .*DECISION_MODEL_API_KEY/);
    const [record] = result.records;
    assert.equal(record.attempts, 1, "never retried");
    assert.equal(record.status, "failed");
    assert.equal(record.model, undefined, "nothing is derived from it");
    assert.deepEqual(record.response_altered, {
      reason: "response_contains_key",
      secrets: ["DECISION_MODEL_API_KEY"],
      replaced_with: "[REDACTED]",
    });
    assert.equal((record.response as { model: string }).model, "jev-echo Bearer [REDACTED]");
  } finally {
    await new Promise((resolve) => echo.close(resolve));
  }
  assert.ok(allRecords.length >= 15);
  const stored = JSON.stringify(allRecords);
  assert.ok(!stored.includes("SECRET"));
});

Deno.test("a short key redacts nothing: the stored reply is exactly as received", async () => {
  const short = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({
      model: "jev-x-max",
      system_fingerprint: "fp-EMPTY-x",
      answers: QUESTIONS.map(() => ({ type: "noul", noul: 0.25 })),
      usage: { input_tokens: 1, output_tokens: 1 },
    }));
  });
  await new Promise<void>((resolve) => short.listen(0, "127.0.0.1", resolve));
  try {
    const port = (short.address() as AddressInfo).port;
    for (const apiKey of ["x", "EMPTY"]) {
      const result = await new SystemOneClient({ apiKey, baseURL: `http://127.0.0.1:${port}/v1` })
        .ask(STATE, QUESTIONS);
      assert.ok(result.ok, !result.ok ? result.error : "");
      const [record] = result.records;
      assert.equal(record.model, "jev-x-max");
      assert.equal(record.system_fingerprint, "fp-EMPTY-x");
      assert.equal((record.response as { model: string }).model, "jev-x-max");
      assert.ok(!JSON.stringify(record).includes("REDACTED"));
    }
  } finally {
    await new Promise((resolve) => short.close(resolve));
  }
});

Deno.test("first=N faults exactly the first N attempts of each batch, also of identical batches in flight", async () => {
  await withServer({ faults: "500=0.5,schema=0.5,first=2" }, async (baseUrl) => {
    const results = await Promise.all([1, 2, 3].map(() => client(baseUrl).ask(STATE, QUESTIONS)));
    for (const result of results) {
      keep(result);
      assert.ok(result.ok, !result.ok ? result.error : "");
      assert.equal(result.records[0].attempts, 3);
    }
    assert.deepEqual(results[1].records[0].attempt_errors, results[0].records[0].attempt_errors);
  });
});
