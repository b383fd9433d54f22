/**
 * `sweep run --input-cap 3000,3800`: every context kind at both ceilings in one run, summaries and rankings
 * shared, Full answered once; the report's ceiling table has CIs for each kind at each ceiling; it verifies.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

Deno.test("a sweep over two ceilings shares summaries and rankings and reports each kind at each ceiling", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sweep-ceilings-" });
  try {
    const out = join(tmp, "s");
    const run = await runCli([
      "sweep",
      "run",
      "--reference",
      "-q",
      "--input-cap",
      "3000,3800",
      "--compressions",
      "1",
      "--answers",
      "1",
      "--top-n",
      "1",
      "--bootstrap",
      "200",
      "--output",
      out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
    const count = (stage: string) =>
      manifest.nodes.filter((n: { stage: string }) => n.stage === stage).length;
    assert.equal(count("sweep-summary"), 1);
    assert.equal(count("sweep-rank"), 1);
    assert.equal(count("sweep-context"), 2 * 3, "full, S and S+Top1 at each ceiling");
    const rows = JSON.parse(await Deno.readTextFile(join(out, "results.json"))) as {
      kind: string;
      input_cap: number | null;
    }[];
    assert.deepEqual(rows.map((r) => `${r.kind}@${r.input_cap}`).sort(), [
      "S+Top1@3000",
      "S+Top1@3800",
      "S@3000",
      "S@3800",
      "full@null",
    ]);
    const report = await Deno.readTextFile(join(out, "REPORT.md"));
    assert.match(report, /## Ceiling sweep/);
    assert.match(report, /\| S\+Top1 \| 3000 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/);
    assert.match(report, /\| S\+Top1 \| 3800 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/);
    assert.match(await Deno.readTextFile(join(out, "report.html")), /Fact score against context size/);
    const verified = await runCli(["verify", out]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
