/**
 * `compare` on real runs: two sweep runs side by side, refusal of runs of different suites and of unfinished
 * runs, and the CLI's exit codes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { compareRuns } from "../src/report/compare.ts";
import { suiteNamed } from "../src/suites/registry.ts";
import { runCli } from "./helpers/spawn.ts";

const tmp = await Deno.makeTempDir({ prefix: "compare-test-" });
const SMALL = ["--compressions", "1", "--answers", "1", "--top-n", "1-2", "--quiet"];
const a = join(tmp, "a");
const b = join(tmp, "b");
const engines = join(tmp, "engines");
const made = await Promise.all([
  runCli(["sweep", "run", "--reference", "--output", a, ...SMALL]),
  runCli(["sweep", "run", "--reference", "--output", b, "--reserve", "32", ...SMALL]),
  runCli([
    "engines",
    "run",
    "--reference",
    "--output",
    engines,
    "--turns",
    "20",
    "--repeats",
    "1",
    "--engine",
    "full",
    "--quiet",
  ]),
]);

Deno.test("compare puts every context kind's metrics of two sweep runs side by side with B − A", async () => {
  for (const r of made) assert.equal(r.code, 0, r.stderr);
  const comparison = await compareRuns(a, b, suiteNamed);
  assert.equal(comparison.suite, "sweep");
  const keys = [...new Set(comparison.metrics.map((m) => m.key))];
  assert.deepEqual(keys, ["full", "S", "S+Top1", "S+Top2"]);
  for (const m of comparison.metrics) {
    if (m.a !== null && m.b !== null) assert.equal(m.delta, m.b - m.a);
  }
  const cli = await runCli(["compare", a, b]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /^S\+Top1\s+fact_score/m);
});

Deno.test("compare refuses runs of different suites and unfinished runs with exit 2", async () => {
  const mixed = await runCli(["compare", a, engines]);
  assert.equal(mixed.code, 2);
  assert.match(mixed.stderr, /cannot compare a 'sweep' run .* with a 'engines' run/);
  const missing = await runCli(["compare", a, join(tmp, "nope")]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope: not found/);
});
