import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { OpenAIChatClient } from "../src/models/chat_client.ts";
import type { ChatMessage } from "../src/models/messages.ts";
import { parseFaultSpec } from "../src/models/reference/faults.ts";
import { REQUEST_IDENTITY_HEADER, withRequestIdentity } from "../src/models/request_identity.ts";
import { REFERENCE_CHAT_MODEL, startReferenceServer } from "../src/models/reference/server.ts";
import type { CallRecord, ChatResult } from "../src/models/types.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();
const API_KEY = "sk-test-SECRET";
const allRecords: CallRecord[] = [];

const MESSAGES: ChatMessage[] = [
  { role: "system", content: "Answer briefly." },
  { role: "user", content: "The cache expires hourly. The database is Postgres. Which database is used?" },
];

function keep(result: ChatResult): ChatResult {
  allRecords.push(result.record);
  return result;
}

async function withServer<T>(
  options: { faults?: string; delayMs?: number; retryAfterMs?: number },
  body: (baseUrl: string) => Promise<T>,
): Promise<T> {
  const server = await startReferenceServer({
    counter,
    faults: options.faults ? parseFaultSpec(options.faults) : undefined,
    delayMs: options.delayMs,
    retryAfterMs: options.retryAfterMs ?? 5,
    seed: 3,
  });
  try {
    return await body(server.baseUrl);
  } finally {
    await server.close();
  }
}

Deno.test("chat round trip through the SDK returns content, usage, the answering model and a record", async () => {
  await withServer({}, async (baseUrl) => {
    const sent: unknown[] = [];
    const client = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      fetch: async (input, init) => {
        sent.push(JSON.parse(String(init?.body)));
        return await fetch(input, init);
      },
    });
    const result = keep(await client.complete({ messages: MESSAGES, max_tokens: 100 }));
    assert.ok(result.ok, !result.ok ? result.error : "");
    assert.equal(result.content, "The database is Postgres. The cache expires hourly.");
    assert.equal(result.model, REFERENCE_CHAT_MODEL);
    assert.equal(result.usage.prompt_tokens, counter.countMessages(MESSAGES));
    assert.equal(result.usage.completion_tokens, counter.countText(result.content));
    assert.equal(result.record.status, "ok");
    assert.equal(result.record.attempts, 1);
    assert.equal(result.record.model, REFERENCE_CHAT_MODEL);
    assert.deepEqual(result.record.usage, {
      input_tokens: result.usage.prompt_tokens,
      output_tokens: result.usage.completion_tokens,
    });
    assert.equal(client.model, "qwen3.8-max");
    assert.deepEqual(sent, [{
      model: "qwen3.8-max",
      messages: MESSAGES,
      temperature: 0,
      max_tokens: 100,
      enable_thinking: false,
      chat_template_kwargs: { enable_thinking: false },
    }]);
    assert.deepEqual(result.record.request, sent[0]);
  });
});

Deno.test("thinking switches can be turned off for servers that reject unknown fields", () => {
  const client = new OpenAIChatClient({
    apiKey: API_KEY,
    baseURL: "http://127.0.0.1:9/v1",
    model: "other",
    sendEnableThinking: false,
    sendChatTemplateKwargs: false,
  });
  assert.deepEqual(client.requestBody({ messages: MESSAGES }), {
    model: "other",
    messages: MESSAGES,
    temperature: 0,
  });
});

Deno.test("identical chat requests get identical responses", async () => {
  const bodies: unknown[] = [];
  for (let round = 0; round < 2; round++) {
    await withServer({}, async (baseUrl) => {
      const client = new OpenAIChatClient({ apiKey: API_KEY, baseURL: baseUrl });
      for (let i = 0; i < 2; i++) {
        const result = keep(await client.complete({ messages: MESSAGES }));
        assert.ok(result.ok);
        bodies.push(result.record.response);
      }
    });
  }
  for (const body of bodies) assert.deepEqual(body, bodies[0]);
});

for (
  const [kind, timeoutMs] of [["429", 5000], ["500", 5000], ["drop", 5000], ["hang", 300]] as const
) {
  Deno.test(`chat retries a ${kind} fault and then succeeds`, async () => {
    await withServer({ faults: `${kind}=1,first=1` }, async (baseUrl) => {
      const client = new OpenAIChatClient({ apiKey: API_KEY, baseURL: baseUrl, timeoutMs, maxRetries: 2 });
      const result = keep(await client.complete({ messages: MESSAGES }));
      assert.ok(result.ok, !result.ok ? result.error : "");
      assert.equal(result.record.attempts, 2);
      assert.equal(result.record.status, "ok");
    });
  });
}

for (
  const [kind, reason] of [
    ["malformed", /malformed JSON response/],
    ["truncated", /truncated response body/],
    ["schema", /does not match the chat completion schema: choices/],
  ] as const
) {
  Deno.test(`chat retries a ${kind} 200 body like a 500 and then succeeds`, async () => {
    await withServer({ faults: `${kind}=1,first=2` }, async (baseUrl) => {
      const client = new OpenAIChatClient({
        apiKey: API_KEY,
        baseURL: baseUrl,
        timeoutMs: 5000,
        maxRetries: 2,
      });
      const result = keep(await client.complete({ messages: MESSAGES }));
      assert.ok(result.ok, !result.ok ? result.error : "");
      assert.equal(result.record.status, "ok");
      assert.equal(result.record.attempts, 3);
      assert.equal(result.record.attempt_errors?.length, 2);
      for (const cause of result.record.attempt_errors!) assert.match(cause, reason);
    });
  });

  Deno.test(`chat records a ${kind} body that never stops with every attempt's cause`, async () => {
    await withServer({ faults: `${kind}=1` }, async (baseUrl) => {
      const client = new OpenAIChatClient({
        apiKey: API_KEY,
        baseURL: baseUrl,
        timeoutMs: 5000,
        maxRetries: 2,
      });
      const result = keep(await client.complete({ messages: MESSAGES }));
      assert.ok(!result.ok);
      assert.match(result.error, reason);
      assert.match(result.error, /retries exhausted, 3 attempts/);
      assert.equal(result.record.status, "failed");
      assert.equal(result.record.error, result.error);
      assert.equal(result.record.attempts, 3);
      assert.equal(result.record.attempt_errors?.length, 3);
      for (const cause of result.record.attempt_errors!) assert.match(cause, reason);
      assert.ok(result.record.elapsed_ms >= 0);
    });
  });
}

Deno.test("chat spends one retry budget on every fault kind: status and body faults together", async () => {
  await withServer({ faults: "500=0.5,malformed=0.25,truncated=0.25,first=4" }, async (baseUrl) => {
    const client = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      timeoutMs: 5000,
      maxRetries: 4,
    });
    const result = keep(await client.complete({ messages: MESSAGES }));
    assert.ok(result.ok, !result.ok ? result.error : "");
    assert.equal(result.record.attempts, 5);
    assert.equal(result.record.attempt_errors?.length, 4);
  });
  await withServer({ faults: "500=0.5,malformed=0.5" }, async (baseUrl) => {
    const client = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      timeoutMs: 5000,
      maxRetries: 3,
    });
    const result = keep(await client.complete({ messages: MESSAGES }));
    assert.ok(!result.ok);
    assert.equal(result.record.attempts, 4);
    assert.equal(result.record.attempt_errors?.length, 4);
  });
});

Deno.test("chat records exhausted retries as a failed call naming the status and attempts", async () => {
  await withServer({ faults: "429=1" }, async (baseUrl) => {
    const client = new OpenAIChatClient({ apiKey: API_KEY, baseURL: baseUrl, maxRetries: 2 });
    const result = keep(await client.complete({ messages: MESSAGES }));
    assert.ok(!result.ok);
    assert.match(result.error, /HTTP 429 \(retries exhausted, 3 attempts\)/);
    assert.equal(result.record.attempts, 3);
    assert.deepEqual(result.record.attempt_errors, ["HTTP 429", "HTTP 429", "HTTP 429"]);
    assert.deepEqual(result.record.response, {
      message: "reference fault: rate limited",
      type: "rate_limit_error",
      code: null,
    });
  });
  await withServer({ faults: "hang=1" }, async (baseUrl) => {
    const client = new OpenAIChatClient({ apiKey: API_KEY, baseURL: baseUrl, maxRetries: 1, timeoutMs: 200 });
    const result = keep(await client.complete({ messages: MESSAGES }));
    assert.ok(!result.ok);
    assert.match(result.error, /timed out after 200 ms \(2 attempts\)/);
  });
});

Deno.test("chat honours Retry-After before retrying a 429", async () => {
  await withServer({ faults: "429=1,first=1", retryAfterMs: 400 }, async (baseUrl) => {
    const client = new OpenAIChatClient({ apiKey: API_KEY, baseURL: baseUrl });
    const started = performance.now();
    const result = keep(await client.complete({ messages: MESSAGES }));
    assert.ok(result.ok);
    assert.ok(performance.now() - started >= 380, "waited for Retry-After");
  });
});

Deno.test("a client error is not retried and a server reply is checked, never trusted", async () => {
  await withServer({}, async (baseUrl) => {
    const client = new OpenAIChatClient({ apiKey: API_KEY, baseURL: `${baseUrl}/nowhere` });
    const result = keep(await client.complete({ messages: MESSAGES }));
    assert.ok(!result.ok);
    assert.match(result.error, /HTTP 404 \(not retryable, 1 attempts\)/);
  });
  const invalid = keep(
    await new OpenAIChatClient({ apiKey: API_KEY, baseURL: "http://127.0.0.1:9/v1" }).complete({
      messages: [],
    }),
  );
  assert.ok(!invalid.ok);
  assert.match(invalid.error, /invalid chat request: messages/);
  assert.equal(invalid.record.attempts, 0);
});

Deno.test("clients of one endpoint share its concurrency limit", async () => {
  await withServer({ delayMs: 60 }, async (baseUrl) => {
    let active = 0;
    let peak = 0;
    const countingFetch: typeof fetch = async (input, init) => {
      active++;
      peak = Math.max(peak, active);
      try {
        return await fetch(input, init);
      } finally {
        active--;
      }
    };
    const a = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      concurrency: 2,
      fetch: countingFetch,
    });
    const b = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      concurrency: 2,
      fetch: countingFetch,
    });
    const results = await Promise.all(
      Array.from(
        { length: 6 },
        (_, i) => (i % 2 ? a : b).complete({ messages: [{ role: "user", content: `Question ${i}?` }] }),
      ),
    );
    results.forEach(keep);
    assert.ok(results.every((result) => result.ok));
    assert.equal(peak, 2);
  });
});

Deno.test("the API key never appears in a record, even when a server echoes it", async () => {
  const echo = createServer((request, response) => {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: `bad key ${request.headers.authorization}` } }));
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  try {
    const port = (echo.address() as AddressInfo).port;
    const client = new OpenAIChatClient({ apiKey: API_KEY, baseURL: `http://127.0.0.1:${port}/v1` });
    const result = keep(await client.complete({ messages: MESSAGES }));
    assert.ok(!result.ok);
    assert.match(result.error, /bad key Bearer \[REDACTED\]/);
  } finally {
    await new Promise((resolve) => echo.close(resolve));
  }
  assert.ok(allRecords.length >= 15);
  assert.ok(!JSON.stringify(allRecords).includes("SECRET"));
});

Deno.test("first=N faults exactly the first N attempts of each request, also of identical requests in flight", async () => {
  await withServer({ faults: "500=0.5,malformed=0.5,first=2" }, async (baseUrl) => {
    const client = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      timeoutMs: 5000,
      maxRetries: 2,
    });
    const results = await Promise.all([1, 2, 3].map(() => client.complete({ messages: MESSAGES })));
    for (const result of results) {
      keep(result);
      assert.ok(result.ok, !result.ok ? result.error : "");
      assert.equal(result.record.attempts, 3);
      assert.equal(result.record.attempt_errors?.length, 2);
    }
    assert.deepEqual(results[1].record.attempt_errors, results[0].record.attempt_errors);
    assert.deepEqual(results[2].record.attempt_errors, results[0].record.attempt_errors);
  });
});

/** A server answering every chat completion with `reply(authorization)` as its JSON body. */
async function withReplyServer(
  reply: (authorization: string) => unknown,
  body: (baseUrl: string) => Promise<void>,
): Promise<void> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(reply(String(request.headers.authorization).replace(/^Bearer /, ""))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

function completion(content: string, model = "served-model-7", fingerprint?: string) {
  return {
    model,
    ...(fingerprint !== undefined ? { system_fingerprint: fingerprint } : {}),
    choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
}

Deno.test("a response carrying the key (content, model or system_fingerprint) fails at once; the record says so and holds no key", async () => {
  const shapes: ((key: string) => unknown)[] = [
    (key) => completion(`your key is ${key}`),
    (key) => completion("fine", `model-${key}`),
    (key) => completion("fine", "served-model-7", `fp_${key}`),
  ];
  for (const shape of shapes) {
    await withReplyServer(shape, async (baseUrl) => {
      const client = new OpenAIChatClient({
        apiKey: API_KEY,
        baseURL: baseUrl,
        maxRetries: 2,
        secrets: [{ name: "LLM_API_KEY", value: API_KEY }],
      });
      const result = keep(await client.complete({ messages: MESSAGES }));
      assert.ok(!result.ok);
      assert.match(result.error, /^response_contains_key: the response carries the value of LLM_API_KEY/);
      assert.equal(result.record.attempts, 1, "never retried");
      assert.equal(result.record.model, undefined, "nothing is derived from it");
      assert.equal(result.record.usage, undefined);
      assert.deepEqual(result.record.response_altered, {
        reason: "response_contains_key",
        secrets: ["LLM_API_KEY"],
        replaced_with: "[REDACTED]",
      });
      assert.ok(JSON.stringify(result.record.response).includes("[REDACTED]"));
      assert.ok(!JSON.stringify(result.record).includes(API_KEY));
    });
  }
});

Deno.test("a response carrying the other provider's key fails too, naming that variable", async () => {
  const other = "jev-other-key-0123456789";
  await withReplyServer(() => completion(`leaked ${other}`), async (baseUrl) => {
    const client = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      secrets: [{ name: "LLM_API_KEY", value: API_KEY }, { name: "DECISION_MODEL_API_KEY", value: other }],
    });
    const result = await client.complete({ messages: MESSAGES });
    assert.ok(!result.ok);
    assert.match(result.error, /DECISION_MODEL_API_KEY/);
    assert.ok(!JSON.stringify(result.record).includes(other));
  });
});

Deno.test("short keys redact nothing: request and response are stored exactly as sent and received", async () => {
  for (const apiKey of ["x", "EMPTY"]) {
    await withReplyServer(
      () => completion("max_tokens exhausted; EMPTY box", "x-model-EMPTY", "fp_x1"),
      async (baseUrl) => {
        const sent: unknown[] = [];
        const client = new OpenAIChatClient({
          apiKey,
          baseURL: baseUrl,
          fetch: (input, init) => {
            sent.push(JSON.parse(String(init?.body)));
            return fetch(input, init);
          },
        });
        const result = await client.complete({ messages: MESSAGES, max_tokens: 20 });
        assert.ok(result.ok, !result.ok ? result.error : "");
        assert.deepEqual(result.record.request, sent[0]);
        assert.deepEqual(
          JSON.parse(JSON.stringify(result.record.response)), // the reply as read: no prototype
          completion("max_tokens exhausted; EMPTY box", "x-model-EMPTY", "fp_x1"),
        );
        assert.equal(result.record.model, "x-model-EMPTY");
        assert.equal(result.record.system_fingerprint, "fp_x1");
        assert.equal(result.system_fingerprint, "fp_x1");
        assert.ok(!JSON.stringify(result.record).toLowerCase().includes("redacted"));
      },
    );
  }
});

Deno.test("identical requests of different stage executions fault independently, each one reproducibly", async () => {
  // 40 stage executions send the same body at temperature 0 (as the protocol's repeats do), no retries.
  const outcomes = async (baseUrl: string): Promise<boolean[]> => {
    const client = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL: baseUrl,
      maxRetries: 0,
      timeoutMs: 5000,
    });
    return await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        withRequestIdentity(`node-${i}`, async () => {
          const result = keep(await client.complete({ messages: MESSAGES }));
          return result.ok;
        })),
    );
  };
  const first = await withServer({ faults: "500=0.5" }, outcomes);
  const failed = first.filter((ok) => !ok).length;
  assert.ok(
    failed > 5 && failed < 35,
    `about half of 40 identical requests fail, not all or none: ${failed}`,
  );
  assert.deepEqual(await withServer({ faults: "500=0.5" }, outcomes), first, "the same faults again");
  // Outside a stage execution no identity is sent: faults follow the body and the attempt only.
  const seen: (string | null)[] = [];
  const client = new OpenAIChatClient({
    apiKey: API_KEY,
    baseURL: "http://127.0.0.1:9/v1",
    maxRetries: 0,
    fetch: (_input, init) => {
      seen.push(new Headers(init?.headers).get(REQUEST_IDENTITY_HEADER));
      return Promise.resolve(new Response("{}", { status: 500 }));
    },
  });
  keep(await client.complete({ messages: MESSAGES }));
  keep(await withRequestIdentity("node-x", () => client.complete({ messages: MESSAGES })));
  assert.deepEqual(seen, [null, "node-x"]);
});

Deno.test("over real HTTP the server gets the body as serialized once, the SDK's headers, the attempt and identity, never the call header", async () => {
  const seen: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  const completion = {
    model: "m",
    choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
  const server = createServer((request, response) => {
    const chunks: Uint8Array[] = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      seen.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf-8") });
      // Every first attempt of a call fails: the retry is seen too.
      const attempt = request.headers["x-compaction-bench-attempt"];
      const text = attempt === "0" ? '{"error":{"message":"busy"}}' : JSON.stringify(completion);
      response.writeHead(attempt === "0" ? 500 : 200, {
        "content-type": "application/json",
        "retry-after-ms": "1",
      });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const request = {
    messages: [...MESSAGES, { role: "user" as const, content: 'quotes " and \\ and \u2028 and é' }],
    max_tokens: 7,
  };
  try {
    const globalFetch = new OpenAIChatClient({ apiKey: API_KEY, baseURL, maxRetries: 2 });
    // A fetch given to the client is handed a Headers object instead of a record: the wire is the same.
    const givenFetch = new OpenAIChatClient({
      apiKey: API_KEY,
      baseURL,
      maxRetries: 2,
      fetch: (input, init) => fetch(input, init),
    });
    const results = [
      keep(await withRequestIdentity("node-wire", () => globalFetch.complete(request))),
      keep(await withRequestIdentity("node-wire", () => givenFetch.complete(request))),
    ];
    const body = JSON.stringify(globalFetch.requestBody(request));
    for (const result of results) {
      assert.ok(result.ok, !result.ok ? result.error : "");
      assert.deepEqual(result.record.request, JSON.parse(body));
      assert.deepEqual(result.record.attempt_errors, ["HTTP 500"]);
      assert.equal(result.record.attempts, 2);
    }
    assert.equal(seen.length, 4);
    for (const [i, { headers, body: sent }] of seen.entries()) {
      assert.equal(sent, body);
      assert.equal(headers["x-compaction-bench-attempt"], String(i % 2));
      assert.equal(headers["x-stainless-retry-count"], String(i % 2));
      assert.equal(headers[REQUEST_IDENTITY_HEADER], "node-wire");
      assert.equal(headers["x-compaction-bench-call"], undefined);
      assert.equal(headers["content-type"], "application/json");
      assert.equal(headers["accept"], "application/json");
      assert.equal(headers["authorization"], `Bearer ${API_KEY}`);
      assert.match(String(headers["user-agent"]), /^OpenAI\//);
    }
    const names = (i: number) => Object.keys(seen[i].headers).sort();
    assert.deepEqual(names(0), names(2));
    assert.deepEqual(names(1), names(3));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

Deno.test("a body that stalls after its headers ends at the body deadline and is retried, with the global fetch and a given one", async () => {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests++;
    // Headers and the first bytes of a declared body, then nothing more: the body never completes.
    response.writeHead(200, { "content-type": "application/json", "content-length": "500" });
    response.write('{"model":"m","choices":[');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    for (
      const fetchGiven of [
        undefined,
        (input: string | URL | Request, init?: RequestInit) => fetch(input, init),
      ]
    ) {
      requests = 0;
      const client = new OpenAIChatClient({
        apiKey: API_KEY,
        baseURL,
        maxRetries: 1,
        timeoutMs: 300,
        ...(fetchGiven ? { fetch: fetchGiven } : {}),
      });
      const started = performance.now();
      const result = await client.complete({ messages: MESSAGES });
      assert.ok(!result.ok);
      const cause = "truncated response body (HTTP 200): body not complete after 300 ms";
      assert.equal(result.error, `${cause} (retries exhausted, 2 attempts)`);
      assert.deepEqual(result.record.attempt_errors, [cause, cause]);
      assert.equal(result.record.attempts, 2);
      assert.equal(requests, 2);
      assert.ok(performance.now() - started >= 600, "each attempt waited for its deadline");
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
