import assert from "node:assert/strict";
import { join } from "node:path";
import { blobRelativePath } from "../src/store/blob_store.ts";
import type { Manifest } from "../src/store/manifest.ts";
import { nodeKey } from "../src/store/manifest.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { RunChecker, verifyRun } from "../src/store/verify.ts";
import { testHeader } from "./helpers/header.ts";
import { runPipeline } from "./helpers/pipeline.ts";
import { runCli } from "./helpers/spawn.ts";
import { flipByte } from "./helpers/tree.ts";

/** A folder holding two finished runs at different depths (`a` and `deep/er/b`). */
async function folderOfRuns(): Promise<{ root: string; runs: string[] }> {
  const root = await Deno.makeTempDir();
  const runs = [join(root, "a"), join(root, "deep", "er", "b")];
  for (const run of runs) await runPipeline({ output: run, stages: 3 });
  await Deno.writeTextFile(join(root, "notes.txt"), "not a run\n");
  return { root, runs };
}

Deno.test("verify of a folder checks every run at any depth: one line per run, then a total", async () => {
  const { root } = await folderOfRuns();
  try {
    const result = await runCli(["verify", root]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const lines = result.stdout.trim().split("\n");
    assert.equal(lines.length, 3, result.stdout);
    assert.match(lines[0], /^ok\s+a: \d+ blobs \(\d+ bytes\), 4 nodes$/);
    assert.match(lines[1], /^ok\s+deep\/er\/b: \d+ blobs/);
    assert.equal(lines[2], "total: 2 run(s), 2 ok, 0 failed");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("verify of a folder with one damaged run exits 1 and names the run and the blob", async () => {
  const { root, runs } = await folderOfRuns();
  try {
    const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(runs[1], "manifest.json")));
    const victim = manifest.nodes[0].outputs.value;
    await flipByte(join(runs[1], blobRelativePath(victim)));
    const result = await runCli(["verify", root]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^ok\s+a: /m);
    assert.match(result.stdout, /^FAILED\s+deep\/er\/b: 1 problem\(s\)/m);
    assert.match(result.stdout, new RegExp(`^  altered: blob ${victim}`, "m"));
    assert.match(result.stdout, /^total: 2 run\(s\), 1 ok, 1 failed$/m);
    const json = await runCli(["verify", root, "--json"]);
    assert.equal(json.code, 1);
    const parsed = JSON.parse(json.stdout);
    assert.equal(parsed.ok, false);
    assert.deepEqual(parsed.runs.map((r: { ok: boolean }) => r.ok), [true, false]);
    assert.equal(parsed.runs[1].problems[0].kind, "altered");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("verify of a folder that holds no run is a usage error (exit 2)", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(root, "empty", "deeper"), { recursive: true });
    const result = await runCli(["verify", root]);
    assert.equal(result.code, 2, result.stdout);
    assert.match(result.stderr, /holds no run directory/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an unfinished run's journal header sources count as declared sources (no false dangling)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await RunDir.create(join(dir, "run"), testHeader(), {
      "data.txt": new TextEncoder().encode("d"),
    });
    const source = run.header.sources["data.txt"];
    const out = await run.store.putJson({ derived: true });
    await run.recordNode({
      key: nodeKey("derive", 1, {}, { source }),
      label: "derive",
      stage: "derive",
      version: 1,
      params: {},
      inputs: { source },
      outputs: { out },
      requests: [],
      usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
      started: "2026-01-01T00:00:00.000Z",
      finished: "2026-01-01T00:00:00.000Z",
      status: "ok",
    });
    await run.abandon();
    const report = await verifyRun(run.path);
    assert.deepEqual(report.problems.map((p) => p.kind), ["unfinished"], JSON.stringify(report.problems));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the checker yields its problems phase by phase, in order", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    await runPipeline({ output: run, stages: 3 });
    const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
    await Deno.chmod(join(run, blobRelativePath(manifest.nodes[0].outputs.value)), 0o644);
    await flipByte(join(run, blobRelativePath(manifest.nodes[1].outputs.value)));
    await Deno.writeTextFile(join(run, "stray.txt"), "x");
    const phases: string[] = [];
    for await (const problem of new RunChecker(run).check()) phases.push(`${problem.phase}:${problem.kind}`);
    assert.deepEqual(phases, ["structure:mode", "blobs:altered", "files:unknown_file"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
