/**
 * A new method is one declaration. This file declares `lead` (keep the evidence units in source order while
 * the complete answer input fits; it needs neither a ranking nor a summary) and, run as a program, registers it
 * and hands its arguments to the CLI; as a test, it runs that program through `hotpot run` and `sweep run`
 * beside an engine method (`truncate`, model-free: one generation) and through `engines run` beside the
 * `truncate` engine, and checks that every row is scored, within the ceiling or budget, and that the runs verify.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  declaredMethod,
  registerMethod,
  selectRankedUnits,
  suiteSetParams,
} from "../src/methods/registry.ts";
import { resolveMethods } from "../src/methods/engine_method.ts";
import { runCli, runDeno } from "./helpers/spawn.ts";

registerMethod({
  kind: "units",
  name: "lead",
  needs: [],
  ceilingBinds: true,
  params: {},
  evidence(frame) {
    const order = frame.units.map((u) => u.id);
    const { kept } = selectRankedUnits(
      frame.counter,
      frame.units,
      order,
      (k) => frame.render(k, ""),
      frame.limit,
    );
    return { kept, summary: "" };
  },
});

if (import.meta.main) {
  const { main } = await import("../main.ts");
  Deno.exit(await main(Deno.args));
}

const SELF = "tests/methods_registry.test.ts";

Deno.test("a method declared in one file runs through hotpot, sweep and engines, beside an engine", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const collect = await runCli(["hotpot", "collect", "-q", "--questions", "4", "--output", join(dir, "c")]);
    assert.equal(collect.code, 0, collect.stderr);
    const hotpot = await runDeno(SELF, [
      "hotpot",
      "run",
      "--reference",
      "-q",
      "--corpus",
      join(dir, "c", "corpus.json"),
      "--method",
      "lead",
      "--method",
      "truncate",
      "--compressions",
      "2",
      "--answers",
      "1",
      "--output",
      join(dir, "h"),
    ]);
    assert.equal(hotpot.code, 0, hotpot.stderr);
    const rows = JSON.parse(await Deno.readTextFile(join(dir, "h", "results.json")));
    const lead = rows.filter((r: { method: string }) => r.method === "lead");
    const truncate = rows.filter((r: { method: string }) => r.method === "truncate");
    assert.equal(lead.length, 8, "4 questions × 2 generations");
    assert.equal(truncate.length, 4, "a model-free engine is compacted once");
    for (const r of [...lead, ...truncate]) {
      assert.equal(r.status, "ok", r.reason);
      assert.equal(r.within_cap, true);
      assert.equal(typeof r.metrics.em, "number");
      assert.equal(typeof r.sp_survival, "number");
    }
    const protocol = JSON.parse(await Deno.readTextFile(join(dir, "h", "protocol.json")));
    assert.deepEqual(protocol.methods, ["lead", "truncate"]);
    assert.equal(protocol.engines[0].spec, "truncate");
    assert.equal(protocol.engines[0].deterministic, true);
    const report = await Deno.readTextFile(join(dir, "h", "REPORT.md"));
    assert.match(report, /\| lead \|/);
    assert.match(report, /deterministic/);

    // A frozen run's engine windows are reused like any compression node (the key holds the spec).
    const again = await runDeno(SELF, [
      "hotpot",
      "run",
      "--reference",
      "-q",
      "--corpus",
      join(dir, "c", "corpus.json"),
      "--method",
      "lead",
      "--method",
      "truncate",
      "--compressions",
      "2",
      "--answers",
      "1",
      "--frozen-run",
      join(dir, "h"),
      "--output",
      join(dir, "h2"),
    ]);
    assert.equal(again.code, 0, again.stderr);
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, "h2", "manifest.json")));
    const engineNodes = manifest.nodes.filter((n: { stage: string }) => n.stage === "hotpot-engine");
    assert.equal(engineNodes.length, 4);
    assert.ok(engineNodes.every((n: { reused_from?: unknown }) => n.reused_from !== undefined));

    const sweep = await runDeno(SELF, [
      "sweep",
      "run",
      "--reference",
      "-q",
      "--compressions",
      "2",
      "--answers",
      "1",
      "--top-n",
      "1",
      "--method",
      "lead",
      "--method",
      "truncate",
      "--output",
      join(dir, "s"),
    ]);
    assert.equal(sweep.code, 0, sweep.stderr);
    const sweepRows = JSON.parse(await Deno.readTextFile(join(dir, "s", "results.json")));
    const kinds = sweepRows.map((r: { kind: string }) => r.kind);
    assert.deepEqual(kinds, ["full", "full", "S", "S", "S+Top1", "S+Top1", "lead", "lead", "truncate"]);
    for (const r of sweepRows.filter((r: { kind: string }) => r.kind === "lead" || r.kind === "truncate")) {
      assert.equal(r.within_cap, true);
      assert.equal(typeof r.fact_score, "number");
    }
    const engines = await runDeno(SELF, [
      "engines",
      "run",
      "--reference",
      "-q",
      "--turns",
      "40",
      "--repeats",
      "1",
      "--engine",
      "lead",
      "--engine",
      "truncate",
      "--output",
      join(dir, "e"),
    ]);
    assert.equal(engines.code, 0, engines.stderr);
    const engineRows = JSON.parse(await Deno.readTextFile(join(dir, "e", "results.json"))).engines;
    assert.deepEqual(engineRows.map((r: { engine: string }) => r.engine), ["lead", "truncate"]);
    for (const r of engineRows) {
      assert.equal(r.status, "ok", r.reason);
      assert.equal(r.within_budget, true);
      assert.equal(r.tool_pairing_valid, true);
      assert.ok(r.messages_out < r.messages_in);
      assert.equal(typeof r.qa.recall, "number");
    }
    // lead keeps the oldest units, truncate the newest: two algorithms, two windows.
    assert.notEqual(engineRows[0].window_hash, engineRows[1].window_hash);
    for (const run of ["h", "s", "e"]) {
      const verify = await runCli(["verify", join(dir, run)]);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** An outside engine that asks the chat model once (through the loopback endpoint it is given) and keeps the head. */
const CALLING_ENGINE = `
import json, os, sys, urllib.request
req = json.load(sys.stdin)
body = json.dumps({"model": os.environ["OPENAI_MODEL"], "messages": [{"role": "user", "content": "Summarize: ok"}]})
r = urllib.request.Request(os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions", data=body.encode(),
    headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
urllib.request.urlopen(r).read()
json.dump({"messages": req["messages"][:2]}, sys.stdout)
`;

Deno.test("an outside engine's model calls through the loopback endpoint count as its compression usage", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = join(dir, "calling_engine.py");
    await Deno.writeTextFile(script, CALLING_ENGINE);
    const collect = await runCli(["hotpot", "collect", "-q", "--questions", "2", "--output", join(dir, "c")]);
    assert.equal(collect.code, 0, collect.stderr);
    const run = await runCli([
      "hotpot",
      "run",
      "--reference",
      "-q",
      "--corpus",
      join(dir, "c", "corpus.json"),
      "--method",
      `caller=exec:python3 ${script}`,
      "--compressions",
      "1",
      "--answers",
      "1",
      "--output",
      join(dir, "h"),
    ]);
    assert.equal(run.code, 0, run.stderr);
    const aggregate = JSON.parse(await Deno.readTextFile(join(dir, "h", "aggregate.json")));
    const caller = aggregate.find((a: { method: string }) => a.method === "caller");
    assert.equal(caller.compression_usage.calls, 2, "one model call per question, recorded as the engine's");
    assert.ok(caller.compression_usage.input_tokens > 0);
    assert.equal(caller.valid, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unknown method is refused, naming the option", async () => {
  const result = await runCli([
    "sweep",
    "run",
    "--reference",
    "--method",
    "no-such-thing",
    "--output",
    "/nonexistent/x",
  ]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--method "no-such-thing": unknown method/);
});

Deno.test("a run's option sets a method parameter by its declared name, never by the method's name", () => {
  const own = registerMethod({
    kind: "units",
    name: "test-share-param",
    needs: ["summary"],
    ceilingBinds: true,
    params: { fusion_share: 0.1, n: 3 },
    retain: () => [],
    evidence: (_frame, artifacts) => ({ kept: [], summary: artifacts.summary?.text ?? "" }),
  });
  assert.deepEqual(suiteSetParams(own, { fusion_share: 0.7 }), { fusion_share: 0.7, n: 3 });
  assert.deepEqual(suiteSetParams(declaredMethod("jev+summary")!, { fusion_share: 0.7 }), {
    fusion_share: 0.7,
  });
  assert.deepEqual(suiteSetParams(declaredMethod("summary")!, { fusion_share: 0.7 }), {});
  assert.deepEqual(suiteSetParams(declaredMethod("summary+top")!, {}), { n: 1 });
});

Deno.test("a selection is a declared method where the suite runs it over its units, else the same method as an engine", () => {
  const kinds = (declared: boolean) =>
    resolveMethods(
      [{ name: "jev+summary", spec: "jev+summary" }, { name: "lead", spec: "lead" }],
      "--method",
      () => declared,
    ).map((m) => [m.kind, m.kind === "engine" ? m.deterministic : null]);
  assert.deepEqual(kinds(true), [["units", null], ["units", null]]);
  // As engines: a method needing no model calls none (one generation); the fusion calls two models.
  assert.deepEqual(kinds(false), [["engine", false], ["engine", true]]);
  assert.throws(
    () => resolveMethods([{ name: "mine", spec: "jev" }], "--method", () => true),
    /--method mine=jev: the method jev keeps its name/,
  );
  assert.throws(
    () =>
      resolveMethods([{ name: "t", spec: "truncate" }, { name: "t", spec: "full" }], "--method", () => false),
    /--method t: the method t is named twice/,
  );
});
