/**
 * Outside engines as persistent workers, timed inside (docs/WORKER_PROTOCOL.md): a stand-in that sleeps a known
 * time at import and inside compress shows start-up and compress time apart (lower bounds only: speed is
 * measured in bench/engines.ts, never asserted); each call gets fresh state; a one-shot exec: engine still
 * works and says so; `--context-length` reaches the engine. And parity with lean-ctx's own harness: on the same
 * input and context length, a plugin whose rules are known gives the same window, messages out and verbatim
 * recall through this program's lean-ctx adapter as through lean-ctx's harness columns (parity_harness.py).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { ONE_SHOT_NOTE, runEngines } from "../src/suites/engines/run.ts";
import { sharedCounter } from "./engines_fixtures/models.ts";
import { runCli } from "./helpers/spawn.ts";

const fixture = (name: string) => new URL(`./engines_fixtures/${name}`, import.meta.url).pathname;

/** The stand-in's sleeps (seconds): at import, inside each compress call. */
const IMPORT_S = 0.6;
const COMPRESS_S = 0.15;

Deno.test("a worker's start-up and its engine's own compress time are recorded apart; every call has fresh state", async () => {
  const counter = await sharedCounter();
  const { messages, needles } = generateTranscript({ turns: 20, needles: 2 });
  const [row] = await runEngines({
    messages,
    needles,
    engines: [{
      name: "sleepy",
      spec: `exec:python3 ${fixture("sleepy_worker.py")} ${IMPORT_S} ${COMPRESS_S}`,
    }],
    repeats: 3,
    counter,
    timeoutMs: 30_000,
    contextLength: 3000,
  });
  assert.equal(row.status, "ok", row.reason ?? "");
  assert.equal(row.timing, "worker");
  assert.equal(row.timing_note, null);
  assert.deepEqual(row.worker, {
    engine: "sleepy",
    version: "1.0",
    keeps_state: false,
    reported_startup_ms: row.worker!.reported_startup_ms,
  });
  // Start-up holds the import sleep; each compress figure holds the compress sleep (lower bounds only).
  assert.ok(row.startup_ms! >= IMPORT_S * 1000, `start-up ${row.startup_ms} ms`);
  assert.ok(row.worker!.reported_startup_ms! >= IMPORT_S * 1000);
  const own = row.compress_ms!;
  assert.equal(own.warm.length, 3);
  for (const ms of [own.cold!, ...own.warm]) assert.ok(ms >= COMPRESS_S * 1000, `compress ${ms} ms`);
  // The round trip holds the compress call (the harness saw at least what the worker timed).
  for (const [i, ms] of row.latency_ms.warm.entries()) assert.ok(ms >= own.warm[i]);
  // Fresh state per call: the engine's store (in a fresh home per call) has seen one call every time, so every
  // warm window is the cold one; and the context length reached the engine.
  assert.equal(row.deterministic, true);
  assert.equal(row.context_length, 3000);
  assert.ok(
    row.window!.some((m) => m.content === "context_length=3000 calls_in_store=1"),
    JSON.stringify(row.window!.slice(0, 3)),
  );
});

Deno.test("a one-shot exec: engine (one request, one reply, no hello) still works, its row labelled one-shot", async () => {
  const counter = await sharedCounter();
  const dir = await Deno.makeTempDir({ prefix: "one_shot_" });
  try {
    const script = join(dir, "one_shot.py");
    await Deno.writeTextFile(
      script,
      "import json, sys\nreq = json.load(sys.stdin)\n" +
        'note = {"role": "user", "content": "context_length=%s" % req.get("context_length")}\n' +
        'tail = req["messages"][-4:]\nwhile tail and tail[0]["role"] == "tool": tail = tail[1:]\n' +
        'json.dump({"messages": [note] + tail}, sys.stdout)\n',
    );
    const { messages } = generateTranscript({ turns: 12, needles: 1 });
    const [budgetRow, contextRow] = [
      ...await runEngines({
        messages,
        engines: [`exec:python3 ${script}`],
        repeats: 1,
        counter,
        timeoutMs: 20_000,
      }),
      ...await runEngines({
        messages,
        engines: [`exec:python3 ${script}`],
        repeats: 1,
        counter,
        timeoutMs: 20_000,
        contextLength: 5000,
      }),
    ];
    for (const row of [budgetRow, contextRow]) {
      assert.equal(row.status, "ok", row.reason ?? "");
      assert.equal(row.timing, "one-shot");
      assert.equal(row.timing_note, ONE_SHOT_NOTE);
      assert.equal(row.startup_ms, null);
      assert.equal(row.compress_ms!.cold, null, "a one-shot call's own time is not known");
      assert.ok(row.latency_ms.cold !== null);
    }
    // The budget run sends no context_length; the context-length run sends it and budgets N.
    assert.equal(budgetRow.window![0].content, "context_length=None");
    assert.equal(contextRow.window![0].content, "context_length=5000");
    assert.equal(contextRow.budget_tokens, 5000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("in-process engines time the call itself: compress time is the harness's own figure", async () => {
  const counter = await sharedCounter();
  const { messages } = generateTranscript({ turns: 12, needles: 1 });
  const [row] = await runEngines({
    messages,
    engines: ["truncate"],
    repeats: 2,
    counter,
    contextLength: 2000,
  });
  assert.equal(row.timing, "in-process");
  assert.equal(row.compress_ms!.cold, row.latency_ms.cold);
  assert.deepEqual(row.compress_ms!.warm, row.latency_ms.warm);
  // Without a context-length knob, truncate fits the window it is given.
  assert.equal(row.budget_tokens, 2000);
  assert.equal(row.within_budget, true);
});

Deno.test("parity with lean-ctx's harness: same window, messages out and verbatim recall at the same context length", async () => {
  const counter = await sharedCounter();
  const plugin = fixture("standins/lean_ctx_plugin");
  const { messages, needles } = generateTranscript({ turns: 200, needles: 12 });
  const dir = await Deno.makeTempDir({ prefix: "parity_" });
  // The lean-ctx adapter itself, given the plugin's folder as an engine variable (no process-wide env is set:
  // test files share one process); it speaks the worker protocol, so the exec: probe finds its hello.
  const adapter = new URL("../adapters/lean_ctx.py", import.meta.url).pathname;
  try {
    for (const contextLength of [8000, 16000]) {
      const input = join(dir, `input-${contextLength}.json`);
      await Deno.writeTextFile(
        input,
        JSON.stringify({ messages, needles: needles.map((n) => n.fact), context_length: contextLength }),
      );
      const harness = await new Deno.Command("python3", {
        args: [fixture("parity_harness.py"), plugin, input],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(harness.success, new TextDecoder().decode(harness.stderr));
      const theirs = JSON.parse(new TextDecoder().decode(harness.stdout));
      const [ours] = await runEngines({
        messages,
        needles,
        engines: [{ name: "lean-ctx", spec: `exec:python3 ${adapter}` }],
        engineEnv: { LEAN_CTX_PLUGIN_DIR: plugin },
        repeats: 1,
        counter,
        timeoutMs: 30_000,
        contextLength,
      });
      assert.equal(ours.status, "ok", ours.reason ?? "");
      assert.equal(ours.context_length, contextLength);
      assert.equal(ours.timing, "worker");
      assert.equal(ours.messages_out, theirs.output_messages);
      assert.equal(ours.needles.recall, theirs.verbatim_recall);
      assert.deepEqual(
        ours.window!.map((m) => [m.role, m.content]),
        theirs.window.map((m: { role: string; content: string }) => [m.role, m.content]),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engines run --context-length records each context length; a bad one is refused with exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "context_length_" });
  try {
    const out = join(dir, "run");
    const args = [
      "engines",
      "run",
      "--reference",
      "-q",
      "--engine",
      "truncate",
      "--turns",
      "12",
      "--needles",
      "1",
    ];
    const run = await runCli([
      ...args,
      "--repeats",
      "1",
      "--no-qa",
      "--context-length",
      "3000,6000",
      "--output",
      out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
    assert.deepEqual(results.context_lengths, [3000, 6000]);
    assert.deepEqual(
      results.engines.map((r: { budget: string; context_length: number }) => [r.budget, r.context_length]),
      [["ctx 3000", 3000], ["ctx 6000", 6000]],
    );
    const { protocol } = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
    assert.deepEqual(protocol.context_length, [3000, 6000]);
    const bad = await runCli([...args, "--context-length", "0", "--output", join(dir, "bad")]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--context-length.*"0": a context length must be a whole number/);
    assert.equal(await Deno.stat(join(dir, "bad")).then(() => true, () => false), false, "nothing written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
