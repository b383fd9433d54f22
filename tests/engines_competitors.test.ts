/**
 * The real competitors' adapters (adapters/*.py through exec:) against small stand-ins the tests create —
 * a fake Hermes Agent checkout, a fake hermes-lcm checkout, a fake lean-ctx daemon — and their skipped rows
 * without them; the minimal environment of outside engines; `NAME=SPEC` names.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseEngineSelection } from "../src/methods/engines/engine_names.ts";
import { toolPairingProblem } from "../src/methods/engines/tool_groups.ts";
import { REFERENCE_CHAT_MODEL, startReferenceServer } from "../src/models/reference/server.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { startLoopbackProxy } from "../src/models/loopback_proxy.ts";
import { sharedCounter, startReferenceModels } from "./engines_fixtures/models.ts";

const standin = (name: string) => new URL(`./engines_fixtures/standins/${name}`, import.meta.url).pathname;

/** A fake Hermes Agent checkout: agent/context_compressor.py is the stand-in. */
async function fakeHermes(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "fake_hermes_" });
  await Deno.mkdir(join(dir, "agent"));
  await Deno.writeTextFile(join(dir, "agent", "__init__.py"), "");
  await Deno.copyFile(standin("hermes_context_compressor.py"), join(dir, "agent", "context_compressor.py"));
  await Deno.copyFile(standin("hermes_aux.py"), join(dir, "agent", "auxiliary_client.py"));
  return dir;
}

/** The reference model behind a loopback endpoint, as `engines run` hands it to outside engines. */
async function referenceEndpoint() {
  const counter = await sharedCounter();
  const server = await startReferenceServer({ counter });
  const endpoint = startLoopbackProxy({
    baseURL: server.baseUrl,
    apiKey: "reference-upstream-key",
    model: REFERENCE_CHAT_MODEL,
  });
  return {
    endpoint,
    async close() {
      await endpoint.close();
      await server.close();
    },
  };
}

/** A fake hermes-lcm checkout (a plugin package directory). */
async function fakeLcm(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "fake_hermes_lcm_" });
  await Deno.writeTextFile(join(dir, "__init__.py"), "");
  await Deno.copyFile(standin("lcm_config.py"), join(dir, "config.py"));
  await Deno.copyFile(standin("lcm_engine.py"), join(dir, "engine.py"));
  return dir;
}

/** Sets `vars` in this process for the duration of `fn` (unset ones are removed), then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, Deno.env.get(k)]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

const NO_COMPETITOR_ENV = {
  HERMES_AGENT_DIR: undefined,
  HERMES_LCM_DIR: undefined,
  LEANCTX_URL: undefined,
  LEANCTX_TOKEN: undefined,
  LEAN_CTX_PLUGIN_DIR: undefined,
};

Deno.test("without Hermes, hermes-lcm or a lean-ctx daemon their rows read skipped with the reason, and the run goes on", async () => {
  const counter = await sharedCounter();
  const { messages, needles } = generateTranscript({ turns: 12, needles: 2 });
  const results = await withEnv(NO_COMPETITOR_ENV, () =>
    runEngines({
      messages,
      needles,
      engines: ["hermes", "hermes-lcm", "lean-ctx", "truncate"],
      repeats: 1,
      counter,
      timeoutMs: 20_000,
    }));
  assert.deepEqual(results.map((r) => r.status), ["skipped", "skipped", "skipped", "ok"]);
  assert.match(results[0].reason!, /Hermes Agent not found.*HERMES_AGENT_DIR/);
  assert.match(results[1].reason!, /hermes-lcm not found/);
  assert.match(results[2].reason!, /LEANCTX_URL.*LEAN_CTX_PLUGIN_DIR/);
  for (const r of results.slice(0, 3)) {
    // A skip measures nothing: no window, no latency, no recall.
    assert.equal(r.kind, "outside");
    assert.equal(r.output_tokens, null);
    assert.equal(r.latency_ms.cold, null);
    assert.equal(r.needles.recall, null);
  }
});

Deno.test("the hermes adapter points Hermes' summarizer at the loopback endpoint: its model call is the row's", async () => {
  const counter = await sharedCounter();
  const { endpoint, close } = await referenceEndpoint();
  const hermes = await fakeHermes();
  try {
    const { messages } = generateTranscript({ turns: 20, needles: 2 });
    const input = counter.countMessages(messages);
    const budget = Math.floor(input * 0.25);
    const common = {
      messages,
      repeats: 1,
      counter,
      timeoutMs: 30_000,
      budgetTokens: budget,
      hermesDir: hermes,
    };
    const [withEndpoint] = await withEnv(
      NO_COMPETITOR_ENV,
      () => runEngines({ ...common, engines: [{ name: "hermes", spec: "hermes" }], endpoint }),
    );
    assert.equal(withEndpoint.status, "ok", withEndpoint.reason ?? "");
    const window = withEndpoint.window!;
    const summary = window.find((m) => (m.content ?? "").startsWith("[stand-in summary"));
    assert.ok(summary, "the window holds the summary Hermes' stand-in got from the endpoint");
    // The budget reached Hermes (its protected tail is its default share of it) and its private keys are gone.
    assert.match(summary.content!, new RegExp(`tail budget ${Math.floor(budget * 0.2)}\\]`));
    assert.equal(JSON.stringify(window).includes("_compressed_summary"), false);
    assert.equal(toolPairingProblem(window), null);
    assert.equal(withEndpoint.deterministic, true);
    // Its summarizer's one call went through the endpoint and is recorded as the row's model call.
    assert.equal(withEndpoint.usage!.calls, 1);
    assert.ok(withEndpoint.usage!.input_tokens > 0);
    assert.equal(withEndpoint.records.filter((r) => r.status === "ok").length, 1);
    assert.equal(withEndpoint.usage_all_calls.calls, 2, "cold and warm call each made one");

    // Without an endpoint, the adapter does not guess one: it skips.
    const [withoutEndpoint] = await withEnv(
      { ...NO_COMPETITOR_ENV, LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_API_KEY: "sk-never-passed" },
      () => runEngines({ ...common, engines: ["hermes"] }),
    );
    assert.equal(withoutEndpoint.status, "skipped");
    assert.match(withoutEndpoint.reason!, /no chat endpoint for Hermes' summarizer \(LLM_BASE_URL\)/);
  } finally {
    await close();
    await Deno.remove(hermes, { recursive: true });
  }
});

Deno.test("when Hermes' summarizer reports no provider, the hermes row fails with that reason instead of reading ok", async () => {
  const counter = await sharedCounter();
  const { endpoint, close } = await referenceEndpoint();
  const hermes = await fakeHermes();
  // A Hermes whose auxiliary client reads no per-task config (as an older or misconfigured one).
  await Deno.writeTextFile(
    join(hermes, "agent", "auxiliary_client.py"),
    (await Deno.readTextFile(standin("hermes_aux.py"))).replace(
      "def _task_config(task):",
      "def _task_config(task):\n    return {}\n\n\ndef _unused(task):",
    ),
  );
  try {
    const { messages } = generateTranscript({ turns: 20, needles: 2 });
    const [result] = await withEnv(NO_COMPETITOR_ENV, () =>
      runEngines({
        messages,
        engines: ["hermes"],
        repeats: 0,
        counter,
        timeoutMs: 30_000,
        hermesDir: hermes,
        endpoint,
      }));
    assert.equal(result.status, "failed");
    assert.match(result.reason!, /summarizer reached no model: Auxiliary auto-detect: no provider available/);
    assert.equal(result.usage_all_calls.calls, 0);
  } finally {
    await close();
    await Deno.remove(hermes, { recursive: true });
  }
});

Deno.test("a Hermes checkout that cannot be imported is a skip naming the error, not a crash", async () => {
  const counter = await sharedCounter();
  const hermes = await Deno.makeTempDir({ prefix: "broken_hermes_" });
  await Deno.mkdir(join(hermes, "agent"));
  await Deno.writeTextFile(join(hermes, "agent", "__init__.py"), "");
  await Deno.writeTextFile(
    join(hermes, "agent", "context_compressor.py"),
    "from agent.auxiliary_client import call_llm\n",
  );
  try {
    const { messages } = generateTranscript({ turns: 8, needles: 1 });
    const [result] = await runEngines({
      messages,
      engines: ["hermes"],
      repeats: 0,
      counter,
      hermesDir: hermes,
      engineEnv: { LLM_BASE_URL: "http://127.0.0.1:9/v1" },
      timeoutMs: 20_000,
    });
    assert.equal(result.status, "skipped");
    assert.match(result.reason!, /cannot be imported: ModuleNotFoundError/);
  } finally {
    await Deno.remove(hermes, { recursive: true });
  }
});

Deno.test("the hermes-lcm adapter loads the plugin package in a fresh home per call, its summarizer on the endpoint", async () => {
  const counter = await sharedCounter();
  const lcm = await fakeLcm();
  const hermes = await fakeHermes();
  const { endpoint, close } = await referenceEndpoint();
  try {
    const { messages } = generateTranscript({ turns: 16, needles: 2 });
    const run = (withEndpoint: boolean) =>
      withEnv(
        { ...NO_COMPETITOR_ENV, HERMES_LCM_DIR: lcm },
        () =>
          runEngines({
            messages,
            engines: ["hermes-lcm"],
            repeats: 1,
            counter,
            timeoutMs: 20_000,
            hermesDir: hermes,
            ...(withEndpoint ? { endpoint } : {}),
          }),
      );
    const [result] = await run(true);
    assert.equal(result.status, "ok", result.reason ?? "");
    const note = result.window!.find((m) => (m.content ?? "").startsWith("[lcm stand-in"));
    // A fresh store every call: the warm call saw the same empty home, so the windows are equal.
    assert.match(note!.content!, /session compaction-bench-[0-9a-f]{12}, threshold \d+, store fresh\]/);
    assert.equal(result.deterministic, true);
    assert.equal(toolPairingProblem(result.window!), null);
    assert.equal(result.usage!.calls, 1);
    // Without a reachable summarizer hermes-lcm degrades; the row says so instead of reading ok.
    const [degraded] = await run(false);
    assert.equal(degraded.status, "failed");
    assert.match(degraded.reason!, /hermes-lcm: its summarizer reached no model: .*no provider available/);
  } finally {
    await close();
    await Deno.remove(lcm, { recursive: true });
    await Deno.remove(hermes, { recursive: true });
  }
});

Deno.test("the hermes-lcm adapter offers the plugin's own recall tools and serves them from the engine that compacted", async () => {
  const counter = await sharedCounter();
  const lcm = await fakeLcm();
  const hermes = await fakeHermes();
  const { endpoint, close } = await referenceEndpoint();
  const models = await startReferenceModels();
  try {
    const { messages, needles } = generateTranscript({ turns: 16, needles: 2 });
    const [result] = await withEnv({ ...NO_COMPETITOR_ENV, HERMES_LCM_DIR: lcm }, () =>
      runEngines({
        messages,
        needles,
        engines: ["hermes-lcm"],
        repeats: 0,
        counter,
        chat: models.chat,
        timeoutMs: 20_000,
        hermesDir: hermes,
        endpoint,
      }));
    assert.equal(result.status, "ok", result.reason ?? "");
    assert.deepEqual(result.recovery?.tools, ["lcm_grep"]);
    assert.equal(result.qa?.recall, 0, "the stand-in's window drops the needles");
    assert.equal(result.recovery?.qa?.recall, 1, JSON.stringify(result.recovery?.qa?.answers));
    assert.equal(result.recovery?.tool_calls, 2);
    assert.equal(result.recovery?.tool_errors, 0);
  } finally {
    await models.close();
    await close();
    await Deno.remove(lcm, { recursive: true });
    await Deno.remove(hermes, { recursive: true });
  }
});

Deno.test("without a daemon, lean-ctx runs its plugin's local fallback from LEAN_CTX_PLUGIN_DIR, labelled so", async () => {
  const counter = await sharedCounter();
  const { messages } = generateTranscript({ turns: 16, needles: 2 });
  const plugin = standin("lean_ctx_plugin");
  const budget = 1000;
  const [fallback] = await withEnv(
    { ...NO_COMPETITOR_ENV, LEAN_CTX_PLUGIN_DIR: plugin },
    () =>
      runEngines({
        messages,
        engines: ["lean-ctx"],
        repeats: 1,
        counter,
        budgetTokens: budget,
        timeoutMs: 20_000,
      }),
  );
  assert.equal(fallback.engine, "lean-ctx (local fallback)");
  assert.equal(fallback.status, "ok", fallback.reason ?? "");
  const summary = fallback.window!.find((m) => (m.content ?? "").includes("[lean-ctx] compacted-context"));
  // The plugin's fresh tail is the adapter's share of the budget.
  assert.match(summary!.content!, new RegExp(`fresh tail ${Math.floor(budget * 0.6)} tokens`));
  assert.equal(fallback.deterministic, true);
  assert.equal(fallback.usage!.calls, 0, "no model call");
  // A folder that is not the plugin is a skip naming it; a daemon URL wins over the plugin.
  const [wrong] = await withEnv(
    { ...NO_COMPETITOR_ENV, LEAN_CTX_PLUGIN_DIR: standin("") },
    () => runEngines({ messages, engines: ["lean-ctx"], repeats: 0, counter, timeoutMs: 20_000 }),
  );
  assert.equal(wrong.status, "skipped");
  assert.match(wrong.reason!, /is not lean-ctx's integrations\/hermes-lean-ctx folder/);
  const [daemon] = await withEnv(
    { ...NO_COMPETITOR_ENV, LEAN_CTX_PLUGIN_DIR: plugin, LEANCTX_URL: "http://127.0.0.1:9" },
    () => runEngines({ messages, engines: ["lean-ctx"], repeats: 0, counter, timeoutMs: 20_000 }),
  );
  assert.equal(daemon.engine, "lean-ctx");
  assert.match(daemon.reason!, /daemon unreachable/);
});

Deno.test("the lean-ctx adapter calls ctx_transcript_compact over HTTP with its token; a daemon without it is a skip", async () => {
  const counter = await sharedCounter();
  const seen: { auth: string | null; args?: Record<string, unknown> }[] = [];
  let hasTool = true;
  const daemon = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/health") return new Response("ok");
    if (path !== "/v1/tools/call" || !hasTool) return new Response("unknown route", { status: 404 });
    const body = await request.json();
    seen.push({ auth: request.headers.get("authorization"), args: body.arguments });
    const msgs = body.arguments.messages as { role: string }[];
    const lastUser = msgs.map((m) => m.role).lastIndexOf("user");
    const compacted = [
      msgs[0],
      { role: "user", content: "[lean-ctx] compacted-context" },
      ...msgs.slice(lastUser),
    ];
    const text = JSON.stringify({ messages: compacted, stats: { did_compact: true } });
    return Response.json({ result: { content: [{ type: "text", text }] } });
  });
  try {
    const { messages } = generateTranscript({ turns: 16, needles: 2 });
    const url = `http://127.0.0.1:${daemon.addr.port}`;
    const env = { ...NO_COMPETITOR_ENV, LEANCTX_URL: url, LEANCTX_TOKEN: "daemon-session-token" };
    const [ok] = await withEnv(
      env,
      () =>
        runEngines({
          messages,
          engines: ["lean-ctx"],
          repeats: 0,
          counter,
          budgetTokens: 1000,
          timeoutMs: 20_000,
        }),
    );
    assert.equal(ok.status, "ok", ok.reason ?? "");
    assert.equal(seen[0].auth, "Bearer daemon-session-token");
    assert.equal(seen[0].args!.fresh_tail_tokens, 600);
    assert.ok(ok.window!.some((m) => m.content === "[lean-ctx] compacted-context"));
    hasTool = false;
    const [noTool] = await withEnv(
      env,
      () => runEngines({ messages, engines: ["lean-ctx"], repeats: 0, counter, timeoutMs: 20_000 }),
    );
    assert.equal(noTool.status, "skipped");
    assert.match(noTool.reason!, /no ctx_transcript_compact tool/);
  } finally {
    await daemon.shutdown();
  }
  const [down] = await withEnv({ ...NO_COMPETITOR_ENV, LEANCTX_URL: "http://127.0.0.1:9" }, () =>
    runEngines({
      messages: generateTranscript({ turns: 6, needles: 1 }).messages,
      engines: ["lean-ctx"],
      repeats: 0,
      counter,
      timeoutMs: 20_000,
    }));
  assert.equal(down.status, "skipped");
  assert.match(down.reason!, /unreachable/);
});

Deno.test("an exec: engine that prints its environment sees no LLM_* or DECISION_MODEL_* variable unless passed by name", async () => {
  const counter = await sharedCounter();
  const dir = await Deno.makeTempDir({ prefix: "envspy_" });
  const script = join(dir, "envspy.py");
  await Deno.writeTextFile(
    script,
    [
      "import json, os, sys",
      "req = json.load(sys.stdin)",
      'names = sorted(k for k in os.environ if k.startswith(("LLM_", "DECISION_MODEL_")))',
      'json.dump({"messages": [{"role": "system", "content": "saw " + ",".join(names) + " of " + ",".join(sorted(os.environ))}]}, sys.stdout)',
    ].join("\n"),
  );
  try {
    const { messages } = generateTranscript({ turns: 6, needles: 0 });
    const spy = `exec:python3 ${script}`;
    const secrets = {
      LLM_API_KEY: "sk-spy",
      LLM_BASE_URL: "http://127.0.0.1:9/v1",
      DECISION_MODEL_API_KEY: "dm-spy",
      CB_ENV_CANARY: "canary",
    };
    const [plain, passed] = await withEnv(secrets, async () => [
      (await runEngines({ messages, engines: [spy], repeats: 0, counter, timeoutMs: 20_000 }))[0],
      (await runEngines({
        messages,
        engines: [spy],
        repeats: 0,
        counter,
        timeoutMs: 20_000,
        engineEnv: { LLM_BASE_URL: "http://127.0.0.1:9/v1" },
      }))[0],
    ]);
    assert.equal(plain.status, "ok", plain.reason ?? "");
    // Nothing of this process's environment beyond the minimal one (a python3 shim may add its own).
    const [seen, all] = plain.window![0].content!.replace(/^saw /, "").split(" of ");
    assert.equal(seen, "");
    assert.equal(all.split(",").includes("CB_ENV_CANARY"), false);
    assert.ok(all.split(",").includes("PATH"));
    assert.match(passed.window![0].content!, /^saw LLM_BASE_URL of /);

    // A value passed on purpose that the engine echoes back is redacted from what the run keeps.
    const echo = join(dir, "echo.py");
    await Deno.writeTextFile(
      echo,
      'import json, os, sys\njson.load(sys.stdin)\njson.dump({"messages": [{"role": "system", "content": "key " + os.environ["LLM_API_KEY"]}]}, sys.stdout)\n',
    );
    const [echoed] = await runEngines({
      messages,
      engines: [`exec:python3 ${echo}`],
      repeats: 0,
      counter,
      timeoutMs: 20_000,
      engineEnv: { LLM_API_KEY: "sk-echoed-secret-value" },
    });
    assert.equal(echoed.window![0].content, "key [REDACTED]");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--engine NAME=SPEC names an engine; specs with '=' inside stay whole", () => {
  assert.deepEqual(parseEngineSelection("mine=exec:python3 x.py --k=v"), {
    name: "mine",
    spec: "exec:python3 x.py --k=v",
  });
  assert.deepEqual(parseEngineSelection("exec:python3 x.py --k=v"), {
    name: "exec:python3 x.py --k=v",
    spec: "exec:python3 x.py --k=v",
  });
  assert.deepEqual(parseEngineSelection("http://127.0.0.1:8/c?a=b"), {
    name: "http://127.0.0.1:8/c?a=b",
    spec: "http://127.0.0.1:8/c?a=b",
  });
  assert.deepEqual(parseEngineSelection("short=truncate"), { name: "short", spec: "truncate" });
});

Deno.test("without python3 a competitor's row is a skip naming what is missing", async () => {
  const counter = await sharedCounter();
  const empty = await Deno.makeTempDir({ prefix: "no_python_" });
  try {
    const { messages } = generateTranscript({ turns: 6, needles: 1 });
    const [result] = await withEnv(
      { ...NO_COMPETITOR_ENV, PATH: empty },
      () => runEngines({ messages, engines: ["lean-ctx"], repeats: 0, counter, timeoutMs: 20_000 }),
    );
    assert.equal(result.status, "skipped");
    assert.match(result.reason!, /python3 is not available to run adapters\/lean_ctx\.py/);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});
