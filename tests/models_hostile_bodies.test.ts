/**
 * Hostile response bodies fail their call with the reason, never the program: both clients (the chat client
 * through the real `openai` SDK) read a body up to the bound and cut it off past it, refuse a body that is
 * not UTF-8 or not I-JSON at once (no retry), keep it as its raw bytes, and the record derives again to the
 * same failure (src/models/derive_call.ts).
 */
import assert from "node:assert/strict";
import { OpenAIChatClient } from "../src/models/chat_client.ts";
import { SystemOneClient } from "../src/models/decision_client.ts";
import { type DerivationProblem, deriveChatCall, deriveSystemOneCall } from "../src/models/derive_call.ts";
import { canonicalJson } from "../src/store/canonical.ts";

/** A fetch that answers every request with `body` (bytes or a stream factory) and counts the calls. */
function replying(body: () => BodyInit): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  return {
    fetch: (_input, _init) => {
      calls++;
      return Promise.resolve(new Response(body(), { headers: { "content-type": "application/json" } }));
    },
    calls: () => calls,
  };
}

/** A stream of `total` bytes of one long JSON string, counting what was pulled. */
function flood(total: number, pulled: { bytes: number }): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode("a".repeat(1 << 16));
  let first = true;
  return new ReadableStream({
    pull(controller) {
      if (first) {
        first = false;
        return controller.enqueue(
          new TextEncoder().encode('{"model":"m","choices":[{"message":{"content":"'),
        );
      }
      if (pulled.bytes >= total) return controller.close();
      pulled.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

const completion = (content: string, prompt = "1") =>
  `{"model":"m","choices":[{"message":{"role":"assistant","content":${content}},"finish_reason":"stop"}],` +
  `"usage":{"prompt_tokens":${prompt},"completion_tokens":1,"total_tokens":2}}`;

function chat(fetcher: typeof fetch, maxResponseBytes?: number) {
  return new OpenAIChatClient({
    apiKey: "sk-test-hostile-0123456789",
    baseURL: "http://127.0.0.1:9/v1",
    fetch: fetcher,
    maxRetries: 3,
    ...(maxResponseBytes ? { maxResponseBytes } : {}),
  });
}

const ASK = { messages: [{ role: "user" as const, content: "hello" }] };

for (
  const [name, body, reason] of [
    [
      "a lone surrogate",
      completion('"x \\ud800 y"'),
      /not I-JSON at \$\.choices\[0\]\.message\.content: string with a lone surrogate/,
    ],
    [
      "an integer beyond 2^53",
      completion('"ok"', "9007199254740993"),
      /not I-JSON at \$\.usage\.prompt_tokens: integer 9007199254740992 beyond 2\^53/,
    ],
    [
      "a non-finite number",
      completion('"ok"', "1e400"),
      /not I-JSON at \$\.usage\.prompt_tokens: number Infinity/,
    ],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /response body is not valid UTF-8/],
  ] as const
) {
  Deno.test(`chat: ${name} fails the call at once, kept as its raw bytes, and derives to the same failure`, async () => {
    const replies = replying(() => body);
    const result = await chat(replies.fetch).complete(ASK);
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.error, reason);
    assert.equal(replies.calls(), 1, "a hostile body is not retried");
    const record = result.record;
    assert.ok(record.response_raw, "the raw body is kept");
    assert.equal(record.response, undefined);
    assert.equal(record.response_raw.complete, true);
    canonicalJson(record); // the record is storable
    const problems: DerivationProblem[] = [];
    const derived = deriveChatCall(record, problems);
    assert.deepEqual(problems, []);
    assert.equal(derived.ok, false);
    assert.equal(derived.ok ? "" : derived.error, record.error);
    // A record that claims success, or another error, does not follow from its raw body.
    const claimed: DerivationProblem[] = [];
    deriveChatCall({ ...record, status: "ok" }, claimed);
    assert.deepEqual(claimed.map((p) => p.kind), ["status_mismatch"]);
  });
}

Deno.test("chat: a 100 MB body is read only up to its bound, cut off, and fails the call", async () => {
  const pulled = { bytes: 0 };
  const replies = replying(() => flood(100_000_000, pulled));
  const result = await chat(replies.fetch, 1 << 20).complete(ASK);
  assert.equal(result.ok, false);
  assert.match(
    result.ok ? "" : result.error,
    /response body over its 1048576-byte bound \(--max-response-bytes\): cut off/,
  );
  assert.ok(pulled.bytes < 4 << 20, `at most the bound and a few chunks were pulled (${pulled.bytes})`);
  assert.equal(result.record.response_raw?.complete, false);
  assert.equal(result.record.response_raw?.bytes, (1 << 20) + 1);
  assert.equal(result.record.response_raw?.data.length, 64 * 1024);
  const problems: DerivationProblem[] = [];
  const derived = deriveChatCall(result.record, problems);
  assert.deepEqual(problems, []);
  assert.equal(derived.ok ? "" : derived.error, result.record.error);
});

Deno.test("decision: a lone surrogate or a huge body fails the batch with the reason, kept raw", async () => {
  const surrogate = '{"model":"m","answers":[{"type":"noul","noul":0.5}],"usage":{"input_tokens":1,' +
    '"output_tokens":1},"note":"\\udc00"}';
  const pulled = { bytes: 0 };
  for (
    const [body, reason, bound] of [
      [() => surrogate, /not I-JSON at \$\.note: string with a lone surrogate/, undefined],
      [() => flood(50_000_000, pulled), /over its 1048576-byte bound/, 1 << 20],
    ] as const
  ) {
    const replies = replying(body);
    const client = new SystemOneClient({
      apiKey: "sk-test-hostile-0123456789",
      baseURL: "http://127.0.0.1:9",
      fetch: replies.fetch,
      baseDelayMs: 1,
      maxDelayMs: 2,
      ...(bound ? { maxResponseBytes: bound } : {}),
    });
    const result = await client.ask("state", [{ type: "noul", instructions: "Unit id: a" }]);
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.error, reason);
    assert.equal(replies.calls(), 1);
    const record = result.records[0];
    assert.ok(record.response_raw);
    canonicalJson(record);
    const problems: DerivationProblem[] = [];
    const derived = deriveSystemOneCall(record, problems);
    assert.deepEqual(problems, []);
    assert.equal(derived.ok ? "" : derived.error, record.error);
  }
  assert.ok(pulled.bytes < 4 << 20);
});

Deno.test("both clients check a body in one order: a key first, then UTF-8 (a byte order mark is not JSON)", async () => {
  const key = "sk-test-hostile-0123456789";
  const decision = (fetcher: typeof fetch) =>
    new SystemOneClient({
      apiKey: key,
      baseURL: "http://127.0.0.1:9",
      fetch: fetcher,
      baseDelayMs: 1,
      maxDelayMs: 2,
    });
  const ask = async (fetcher: typeof fetch) => {
    const result = await decision(fetcher).ask("state", [{ type: "noul", instructions: "Unit id: a" }]);
    return { ...result, record: result.records[0] };
  };
  const systemOne =
    '{"model":"m","answers":[{"type":"noul","noul":0.5}],"usage":{"input_tokens":1,"output_tokens":1}}';
  for (
    const [call, body, derive] of [[
      (f: typeof fetch) => chat(f).complete(ASK),
      completion('"ok"'),
      deriveChatCall,
    ], [ask, systemOne, deriveSystemOneCall]] as const
  ) {
    // A body that is not UTF-8 and carries the key fails as response_contains_key; the key is in no record.
    const keyed = new Uint8Array([...new TextEncoder().encode(`{"x":"${key}"`), 0xff, 0x7d]);
    const echoed = replying(() => keyed);
    const refused = await call(echoed.fetch);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? "" : refused.error, /^response_contains_key: /);
    assert.equal(echoed.calls(), 1);
    assert.ok(!JSON.stringify(refused.record).includes(key));
    // A leading byte order mark is not JSON: retried, and the last body is kept raw and derives again.
    const marked = replying(() => `\ufeff${body}`);
    const retried = await call(marked.fetch);
    assert.equal(retried.ok, false);
    assert.match(
      retried.ok ? "" : retried.error,
      /^malformed JSON response \(HTTP 200\): .*retries exhausted/,
    );
    assert.equal(marked.calls(), 4);
    assert.equal(retried.record.response_raw?.data, `\ufeff${body}`);
    assert.equal(retried.record.response, undefined);
    const problems: DerivationProblem[] = [];
    const derived = derive(retried.record, problems);
    assert.deepEqual(problems, []);
    assert.equal(derived.ok ? "" : derived.error, retried.record.error);
  }
});
