import assert from "node:assert/strict";
import { join } from "node:path";
import { RunDir } from "../src/store/run_dir.ts";
import { nodeKey } from "../src/store/manifest.ts";
import { verifyRun } from "../src/store/verify.ts";
import { testHeader } from "./helpers/header.ts";
import type { PipelineOutcome } from "./helpers/pipeline.ts";
import { HANG_GUARD_MS, ROOT, runDeno } from "./helpers/spawn.ts";

const STAGES = 20;
const ARGS = ["--stages", String(STAGES), "--delay-ms", "30"];

async function journalLines(run: string): Promise<number> {
  try {
    const text = await Deno.readTextFile(join(run, "journal.jsonl"));
    return text.split("\n").length - 1;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

Deno.test("--resume finishes a pipeline killed mid-way; its results.json equals an uninterrupted run's", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const whole = join(dir, "whole");
    const broken = join(dir, "broken");

    // The uninterrupted reference run, started at the same time as the one that gets killed.
    const reference = runDeno("tests/helpers/pipeline_cli.ts", ["--output", whole, ...ARGS]);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "tests/helpers/pipeline_cli.ts", "--output", broken, ...ARGS],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Header plus at least 5 journaled nodes, then SIGKILL.
    const deadline = Date.now() + HANG_GUARD_MS;
    while ((await journalLines(broken)) < 6 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill("SIGKILL");
    const killed = await child.output();
    assert.equal(killed.signal, "SIGKILL");
    const journaled = (await journalLines(broken)) - 1;
    assert.ok(journaled >= 5 && journaled < STAGES, `killed mid-way after ${journaled} nodes`);
    await assert.rejects(() => Deno.stat(join(broken, "manifest.json")), Deno.errors.NotFound);
    const unfinished = await verifyRun(broken);
    assert.ok(
      unfinished.problems.some((p) => p.kind === "unfinished"),
      "verify says the killed run is unfinished",
    );

    const resumed = await runDeno("tests/helpers/pipeline_cli.ts", ["--resume", broken, ...ARGS]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const outcome: PipelineOutcome = JSON.parse(resumed.stdout);
    assert.equal(outcome.resumed, true);
    // Every node journaled before the kill was reused; only the rest ran again.
    assert.equal(outcome.counts.resume, journaled);
    assert.equal(outcome.counts.executed, STAGES + 1 - journaled);
    assert.equal(outcome.ran.length, STAGES - journaled);
    assert.ok(outcome.ran.every((i) => i >= journaled), `only later stages ran: ${outcome.ran}`);

    const uninterrupted = await reference;
    assert.equal(uninterrupted.code, 0, uninterrupted.stderr);
    assert.equal(JSON.parse(uninterrupted.stdout).counts.executed, STAGES + 1);

    const a = await Deno.readFile(join(whole, "results.json"));
    const b = await Deno.readFile(join(broken, "results.json"));
    assert.deepEqual(b, a, "results.json bytes are identical");

    const report = await verifyRun(broken);
    assert.deepEqual(report.problems, []);
    assert.equal(report.ok, true);
    assert.equal(report.nodes_checked, STAGES + 1);
    assert.ok((await verifyRun(whole)).ok);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resuming removes temp files of an interrupted export, so the finished run verifies", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    const first = await RunDir.create(run, testHeader());
    await first.abandon();
    // What a process killed inside writeFileAtomic leaves: a temp file beside the exported name, and a blob tmp.
    await Deno.writeTextFile(join(run, "results.json.tmp-4242"), '{"partial":');
    await Deno.mkdir(join(run, "objects", "tmp"), { recursive: true });
    await Deno.writeTextFile(join(run, "objects", "tmp", `${"0".repeat(64)}.4242.0`), "partial");
    assert.ok((await verifyRun(run)).problems.some((p) => p.subject === "results.json.tmp-4242"));

    const resumed = await RunDir.resume(run);
    // A published file is a node's output (verify names any other).
    const results = await resumed.store.putText('{ "done": true }\n');
    await resumed.recordNode({
      key: nodeKey("s", 1, {}, {}),
      label: "s",
      stage: "s",
      version: 1,
      params: {},
      inputs: {},
      outputs: { "results.json": results },
      requests: [],
      usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
      started: "2026-01-01T00:00:00.000Z",
      finished: "2026-01-01T00:00:00.000Z",
      status: "ok",
    });
    await resumed.publish("results.json", results);
    await resumed.finish();
    const report = await verifyRun(run);
    assert.deepEqual(report.problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
