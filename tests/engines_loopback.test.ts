/**
 * The loopback endpoint outside engines reach the chat model through: a stand-in engine (python3) that calls
 * it with its token, plainly and streaming, has those calls recorded as its own (request and response bodies,
 * usage, the answering model) and counted in the table's model calls; one that calls without the token is
 * refused and one that never calls shows 0; a call's token dies with the call; through the CLI the calls are
 * the engine node's requests and the token is in no file of the run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startLoopbackProxy } from "../src/models/loopback_proxy.ts";
import { REFERENCE_CHAT_MODEL, startReferenceServer } from "../src/models/reference/server.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { sharedCounter } from "./engines_fixtures/models.ts";
import { runCli } from "./helpers/spawn.ts";

/**
 * A python3 engine: `plain`, `stream` (one call of each kind), `no-token` (calls with a wrong and no token),
 * `none` (never calls). It writes its token to `notes` and answers with what it got back.
 */
const CALLER = `
import json, os, sys, urllib.request, urllib.error
mode, notes = sys.argv[1], sys.argv[2]
req = json.load(sys.stdin)
# A user's engine gets the endpoint under the OpenAI SDK's names, and nothing named like the program's keys.
if any(k.startswith(("LLM_", "DECISION_MODEL_")) for k in os.environ): sys.exit("saw an LLM_/DECISION_MODEL_ variable")
base, key, model = os.environ.get("OPENAI_BASE_URL"), os.environ.get("OPENAI_API_KEY"), os.environ.get("OPENAI_MODEL")
open(os.path.join(notes, "token"), "w").write(key or "")
def call(body, token):
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    r = urllib.request.Request(base + "/chat/completions", data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(r, timeout=20) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
ask = {"model": "any-model-i-like", "messages": [{"role": "user", "content": "Summarize: the code is NEEDLE-042."}], "max_tokens": 32}
seen = []
if mode in ("plain", "stream"):
    status, text = call(ask, key)
    seen.append(str(status) + " " + json.loads(text)["choices"][0]["message"]["content"][:40])
if mode == "stream":
    status, text = call({**ask, "stream": True}, key)
    seen.append(str(status) + " stream " + str(text.count("data:")))
if mode == "no-token":
    seen.append(str(call(ask, "cb-loopback-guessed")[0]))
    seen.append(str(call(ask, None)[0]))
json.dump({"messages": [{"role": "user", "content": " | ".join(seen) or "no call"}]}, sys.stdout)
`;

async function standIn(): Promise<{ dir: string; script: string; notes: string }> {
  const dir = await Deno.makeTempDir({ prefix: "loopback_caller_" });
  const notes = join(dir, "notes");
  await Deno.mkdir(notes);
  const script = join(dir, "caller.py");
  await Deno.writeTextFile(script, CALLER);
  return { dir, script, notes };
}

Deno.test("an outside engine's calls through the loopback endpoint are its recorded model calls; without the token nothing is forwarded", async () => {
  const counter = await sharedCounter();
  const server = await startReferenceServer({ counter });
  const endpoint = startLoopbackProxy({
    baseURL: server.baseUrl,
    apiKey: "upstream-secret-key-1234",
    model: REFERENCE_CHAT_MODEL,
  });
  const { dir, script, notes } = await standIn();
  try {
    const { messages } = generateTranscript({ turns: 6, needles: 0 });
    const run = (mode: string) =>
      runEngines({
        messages,
        engines: [{ name: mode, spec: `exec:python3 ${script} ${mode} ${notes}` }],
        repeats: 1,
        counter,
        timeoutMs: 20_000,
        endpoint,
      }).then(([r]) => r);

    const streamed = await run("stream");
    assert.equal(streamed.status, "ok", streamed.reason ?? "");
    assert.match(streamed.window![0].content!, /^200 .* \| 200 stream \d+$/);
    assert.equal(streamed.usage!.calls, 2);
    assert.equal(streamed.usage_all_calls.calls, 4, "cold and warm: two calls each");
    const [plain, stream] = streamed.records;
    for (const record of [plain, stream]) {
      assert.equal(record.status, "ok", record.error);
      assert.equal(record.endpoint, "chat");
      assert.equal(record.model, REFERENCE_CHAT_MODEL, "the model that answered");
      // The configured model is what was asked for, whatever the engine named.
      assert.equal((record.request as { model: string }).model, REFERENCE_CHAT_MODEL);
      assert.ok(record.usage!.input_tokens > 0);
    }
    assert.equal(streamed.usage!.input_tokens, plain.usage!.input_tokens + stream.usage!.input_tokens);
    // A stream is stored as the exact text received, its usage from the chunk include_usage asked for.
    assert.equal(typeof stream.response, "string");
    assert.match(stream.response as string, /^data: \{/);
    assert.match(stream.response as string, /data: \[DONE\]/);
    assert.deepEqual((stream.request as { stream_options: unknown }).stream_options, { include_usage: true });
    const token = await Deno.readTextFile(join(notes, "token"));
    assert.match(token, /^cb-loopback-[0-9a-f]{48}$/);
    const stored = JSON.stringify(streamed.records);
    assert.equal(stored.includes(token), false, "the token is transport, never recorded");
    assert.equal(stored.includes("upstream-secret-key-1234"), false, "the real key never reaches a record");
    // The call is over: its token no longer opens the endpoint.
    const late = await fetch(`${endpoint.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(late.status, 401);
    await late.body?.cancel();

    const refused = await run("no-token");
    assert.equal(refused.status, "ok", refused.reason ?? "");
    assert.equal(refused.window![0].content, "401 | 401");
    assert.equal(refused.usage!.calls, 0);
    assert.deepEqual(refused.records, []);

    const silent = await run("none");
    assert.equal(silent.window![0].content, "no call");
    assert.equal(silent.usage!.calls, 0);
  } finally {
    await endpoint.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engines run hands outside engines the loopback endpoint: their calls are the engine node's requests and the table's model calls", async () => {
  const { dir, script, notes } = await standIn();
  const out = join(dir, "run");
  try {
    const result = await runCli([
      "engines",
      "run",
      "--reference",
      "--no-qa",
      "--repeats",
      "0",
      "--turns",
      "12",
      "--engine",
      `caller=exec:python3 ${script} plain ${notes}`,
      "--engine",
      "truncate",
      "--output",
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const rows = JSON.parse(await Deno.readTextFile(join(out, "results.json"))).engines as {
      engine: string;
      usage: { calls: number; input_tokens: number };
    }[];
    assert.equal(rows.find((r) => r.engine === "caller")!.usage.calls, 1);
    assert.ok(rows.find((r) => r.engine === "caller")!.usage.input_tokens > 0);
    assert.equal(rows.find((r) => r.engine === "truncate")!.usage.calls, 0);
    const line = result.stdout.split("\n").find((l) => l.startsWith("caller "))!;
    assert.match(line, /\s1$/, "the model calls column");
    const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
    const node = manifest.nodes.find((n: { label: string }) => n.label === "engine caller");
    assert.equal(node.requests.length, 1);
    assert.equal(node.usage.calls, 1);
    const verify = await runCli(["verify", out]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    // The per-call token is in no file of the run.
    const token = await Deno.readTextFile(join(notes, "token"));
    const grep = await new Deno.Command("grep", { args: ["-rl", token, out] }).output();
    assert.equal(new TextDecoder().decode(grep.stdout), "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a hostile reply through the loopback endpoint fails that call with the reason: a lone surrogate, an unsafe integer, a body past the bound", async () => {
  const counter = await sharedCounter();
  const replies = [
    '{"model":"m","choices":[{"message":{"role":"assistant","content":"\\ud800"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}',
    '{"model":"m","choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9007199254740993,"completion_tokens":1,"total_tokens":2}}',
    '{"model":"m","choices":[{"message":{"role":"assistant","content":"the key is hostile-upstream-key"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}',
  ];
  let next = 0;
  const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    if (next < replies.length) {
      return new Response(replies[next++], { headers: { "content-type": "application/json" } });
    }
    // 9 MiB of one string: past the 8 MiB bound.
    return new Response(
      `{"model":"m","choices":[{"message":{"role":"assistant","content":"${"x".repeat(9 << 20)}"}}]}`,
      {
        headers: { "content-type": "application/json" },
      },
    );
  });
  const endpoint = startLoopbackProxy({
    baseURL: `http://127.0.0.1:${upstream.addr.port}/v1`,
    apiKey: "hostile-upstream-key",
    model: "m",
  });
  const dir = await Deno.makeTempDir({ prefix: "loopback_hostile_" });
  const script = join(dir, "thrice.py");
  await Deno.writeTextFile(
    script,
    [
      "import json, os, sys, urllib.request",
      "json.load(sys.stdin)",
      "got = []",
      "for i in range(4):",
      '    r = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=b\'{"messages": []}\', headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})',
      "    try:",
      "        got.append(len(urllib.request.urlopen(r, timeout=20).read()))",
      "    except Exception as error:",
      "        got.append(type(error).__name__)",
      'json.dump({"messages": [{"role": "user", "content": json.dumps(got)}]}, sys.stdout)',
    ].join("\n"),
  );
  try {
    const [result] = await runEngines({
      messages: [{ role: "user", content: "hello ".repeat(200) }],
      engines: [`exec:python3 ${script}`],
      repeats: 0,
      counter,
      timeoutMs: 30_000,
      endpoint,
    });
    assert.equal(result.status, "ok", result.reason ?? "");
    assert.equal(result.records.length, 4);
    const [surrogate, huge, echo, big] = result.records;
    assert.equal(surrogate.status, "failed");
    assert.match(surrogate.error!, /not I-JSON.*lone surrogate/);
    assert.equal(typeof surrogate.response, "string", "kept as the text received");
    assert.equal(huge.status, "failed");
    assert.match(huge.error!, /not I-JSON/);
    // The key never reaches the outside process, and its stored copy has it replaced, saying so.
    assert.equal(echo.status, "failed");
    assert.match(echo.error!, /^response_contains_key: the response carries the value of LLM_API_KEY/);
    assert.deepEqual(echo.response_altered?.secrets, ["LLM_API_KEY"]);
    assert.equal(JSON.stringify(result.records).includes("hostile-upstream-key"), false);
    assert.equal(JSON.stringify(result.window).includes("hostile-upstream-key"), false);
    assert.equal(echo.usage, undefined, "nothing taken from it");
    assert.equal(big.status, "failed");
    assert.match(big.error!, /over 8388608 bytes: cut off/);
    assert.equal(big.response, undefined);
    assert.equal(result.usage!.calls, 4);
    assert.equal(result.usage!.input_tokens, 0, "nothing is taken from a hostile reply");
  } finally {
    await endpoint.close();
    await upstream.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
