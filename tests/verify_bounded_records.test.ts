/**
 * Bounded readers of a run's records (issue 34, "Why" item 6): a manifest with more nodes than its journal has
 * lines is named at once instead of validated node by node (20,000 bogus nodes overflowed zod's stack; 2,000,000
 * ran on at 4.5 GB); the schema check of the nodes names at most a bounded number of problems; and an I-JSON
 * error in one run of a folder names that run and the line, and the other runs are still checked.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkManifestSchema, MAX_MANIFEST_ISSUES } from "../src/store/manifest_check.ts";
import { verifyRun } from "../src/store/verify.ts";
import { runPipeline } from "./helpers/pipeline.ts";
import { runCli } from "./helpers/spawn.ts";

/** Rewrites `path` (made writable first) with `edit` applied to its text. */
async function editFile(path: string, edit: (text: string) => string): Promise<void> {
  await Deno.chmod(path, 0o644);
  await Deno.writeTextFile(path, edit(await Deno.readTextFile(path)));
}

Deno.test("a manifest with 20,000 bogus nodes beyond its journal's lines is one named problem, not a crash", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    await runPipeline({ output: run, stages: 2 });
    const manifestPath = join(run, "manifest.json");
    await editFile(manifestPath, (text) => {
      const manifest = JSON.parse(text);
      for (let i = 0; i < 20_000; i++) manifest.nodes.push({});
      return JSON.stringify(manifest);
    });
    const report = await verifyRun(run);
    assert.equal(report.ok, false);
    const problem = report.problems.find((p) => p.subject === "manifest.json nodes");
    assert.ok(problem, report.problems.map((p) => `${p.kind}: ${p.subject}: ${p.detail}`).join("\n"));
    assert.match(problem.detail, /^holds 20\d{3} nodes, the journal only \d+ lines/);
    // The journal's nodes are still checked; no node of the manifest is named one by one.
    assert.ok(report.problems.length < 10, `${report.problems.length} problems`);
    assert.ok(report.nodes_checked > 0 && report.nodes_checked < 10);
    const cli = await runCli(["verify", run]);
    assert.equal(cli.code, 1, cli.stderr);
    assert.match(cli.stdout, /manifest: manifest\.json nodes: holds 20\d{3} nodes/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the schema check of 20,000 bad nodes neither overflows the stack nor names every problem", () => {
  const nodes = Array.from({ length: 20_000 }, () => ({}));
  const { manifest, issues } = checkManifestSchema({ nodes });
  assert.equal(manifest, undefined);
  assert.equal(issues.length, MAX_MANIFEST_ISSUES + 1);
  assert.match(issues.at(-1)!.message, /^\d+ more schema problem\(s\) not listed$/);
  assert.ok(issues.some((issue) => issue.path === "nodes.0.key"), JSON.stringify(issues.slice(0, 20)));
});

Deno.test("verify of a folder names the run and journal line of an I-JSON error and checks the other runs", async () => {
  const root = await Deno.makeTempDir();
  try {
    const runs = ["a", "b", "c"].map((name) => join(root, name));
    for (const run of runs) await runPipeline({ output: run, stages: 2 });
    // b: a lone surrogate on journal line 2; c: a duplicate key in manifest.json.
    await editFile(join(runs[1], "journal.jsonl"), (text) => {
      const lines = text.split("\n");
      lines[1] = lines[1].replace('"type":"node"', '"type":"node\\ud800"');
      return lines.join("\n");
    });
    await editFile(join(runs[2], "manifest.json"), (text) => text.replace(/^\{/, '{"finished":"x",'));
    const result = await runCli(["verify", root]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stderr, "");
    assert.match(result.stdout, /^ok\s+a: /m);
    assert.match(result.stdout, /^FAILED\s+b: /m);
    assert.match(result.stdout, /^ {2}journal: journal\.jsonl: journal line 2: not JSON \(a lone surrogate/m);
    assert.match(result.stdout, /^FAILED\s+c: /m);
    assert.match(result.stdout, /^ {2}manifest: manifest\.json: not JSON: duplicate key "finished"/m);
    assert.match(result.stdout, /^total: 3 run\(s\), 1 ok, 2 failed$/m);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
