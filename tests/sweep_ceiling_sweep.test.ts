/**
 * `sweep run --input-cap 3800,5400`: every context kind but Full at both ceilings in one run, summaries and
 * rankings shared and Full answered once; REPORT.md, report.html, results.json, aggregate.json and stats.json
 * show both ceilings; each ceiling's rows equal those of a one-ceiling run at that ceiling, and a one-ceiling
 * run publishes no ceiling list; the run verifies and re-derives.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

const tmp = await Deno.makeTempDir({ prefix: "sweep-ceilings-" });
const SMALL = ["--compressions", "2", "--answers", "1", "--top-n", "1-3", "--bootstrap", "200", "-q"];

async function sweep(out: string, caps: string): Promise<void> {
  const run = await runCli(["sweep", "run", "--reference", "--input-cap", caps, "--output", out, ...SMALL]);
  assert.equal(run.code, 0, run.stderr);
}

interface Row {
  kind: string;
  generation: number;
  input_cap?: number | null;
}

const readJson = async (run: string, file: string) => JSON.parse(await Deno.readTextFile(join(run, file)));

Deno.test("a sweep ceiling sweep runs every compressed kind at each ceiling, shares summaries and rankings, answers Full once, and verifies", async () => {
  const out = join(tmp, "two");
  await sweep(out, "3800,5400");
  const manifest = await readJson(out, "manifest.json");
  const count = (stage: string) => manifest.nodes.filter((n: { stage: string }) => n.stage === stage).length;
  assert.equal(count("sweep-trajectory"), 1);
  assert.equal(count("sweep-summary"), 2, "one summary per generation, shared by both ceilings");
  assert.equal(count("sweep-rank"), 2, "one ranking per generation, shared by both ceilings");
  // Kinds full, S, S+Top1..3: Full once per generation, the four others per generation and ceiling.
  assert.equal(count("sweep-answer"), 2 + 2 * 4 * 2, "Full answered once, each other kind at each ceiling");
  assert.equal(count("sweep-aggregate"), 2);
  assert.equal(count("sweep-ceilings"), 1);
  assert.equal(count("sweep-report"), 1);

  const rows = (await readJson(out, "results.json")) as Row[];
  assert.deepEqual(
    [...new Set(rows.map((r) => `${r.kind}@${r.input_cap}`))],
    [
      "full@null",
      "S@3800",
      "S+Top1@3800",
      "S+Top2@3800",
      "S+Top3@3800",
      "S@5400",
      "S+Top1@5400",
      "S+Top2@5400",
      "S+Top3@5400",
    ],
  );
  const aggregate = (await readJson(out, "aggregate.json")) as { kind: string; input_cap: number | null }[];
  assert.deepEqual(
    aggregate.map((a) => `${a.kind}@${a.input_cap}`),
    [
      "full@null",
      "S@3800",
      "S+Top1@3800",
      "S+Top2@3800",
      "S+Top3@3800",
      "S@5400",
      "S+Top1@5400",
      "S+Top2@5400",
      "S+Top3@5400",
    ],
  );
  const protocol = await readJson(out, "protocol.json");
  assert.deepEqual([protocol.inputCap, protocol.inputCaps], [3800, [3800, 5400]]);

  const report = await Deno.readTextFile(join(out, "REPORT.md"));
  assert.match(report, /ceilings 3800, 5400 tokens \(main tables: 3800\)/);
  assert.match(report, /## Results at the 3800-token ceiling/);
  assert.match(report, /## Ceiling sweep: quality against answer-input size/);
  assert.match(report, /\| full \| none \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/);
  for (const cap of [3800, 5400]) {
    assert.match(report, new RegExp(`\\| S\\+Top1 \\| ${cap} \\| [0-9.]+ \\[[0-9.]+, [0-9.]+\\] \\|`));
  }
  const html = await Deno.readTextFile(join(out, "report.html"));
  assert.match(html, /The quality\/size frontier: fact score/);
  assert.match(html, /The quality\/size frontier: repair pass/);
  assert.match(html, /<title>S\+Top1 at ceiling [0-9, ]+: /);
  assert.match(html, /Full [0-9.]+ \(\d+ tok\)/);
  // The explorer holds every ceiling's conditions (Full once) and a ceiling filter.
  for (const id of ["gen=0 full", "gen=1 S+Top3 @3800", "gen=1 S+Top3 @5400"]) {
    assert.ok(html.includes(JSON.stringify(id)), `the explorer lacks ${id}`);
  }
  assert.ok(!html.includes(JSON.stringify("gen=0 full @3800")), "Full is one condition, not one per ceiling");
  assert.match(html, /"id":"ceiling"/);
  const stats = await readJson(out, "stats.json");
  assert.deepEqual(stats.ceilings.map((c: { input_cap: number }) => c.input_cap), [3800, 5400]);

  const verified = await runCli(["verify", out]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const rederived = await runCli(["verify", "--rederive", out]);
  assert.equal(rederived.code, 0, rederived.stdout + rederived.stderr);
});

Deno.test("each ceiling of a sweep gives the rows a one-ceiling run at that ceiling gives; a one-ceiling run records no ceiling list", async () => {
  const two = join(tmp, "two");
  const nodesOutputs = new Set(
    (await readJson(two, "manifest.json")).nodes.flatMap((n: { outputs: Record<string, string> }) =>
      Object.values(n.outputs)
    ),
  );
  const swept = (await readJson(two, "results.json")) as Row[];
  for (const cap of [3800, 5400]) {
    const one = join(tmp, `one-${cap}`);
    await sweep(one, String(cap));
    const protocol = await readJson(one, "protocol.json");
    assert.equal(protocol.inputCap, cap);
    assert.equal("inputCaps" in protocol, false, "a single ceiling keeps the protocol of before sweeps");
    const rows = (await readJson(one, "results.json")) as Row[];
    assert.ok(rows.every((r) => !("input_cap" in r)), "one-ceiling rows carry no input_cap");
    const withoutCap = (r: Row) => {
      const { input_cap: _cap, ...rest } = r;
      return rest;
    };
    assert.deepEqual(
      swept.filter((r) => r.input_cap === cap).map(withoutCap),
      rows.filter((r) => r.kind !== "full"),
      `the sweep's rows at ${cap} equal the one-ceiling run's`,
    );
    if (cap === 3800) {
      // The primary ceiling's aggregate node is the one-ceiling run's: its results.json is a node output.
      const manifest = await readJson(one, "manifest.json");
      const published = manifest.files["results.json"];
      assert.ok(nodesOutputs.has(published), "the primary ceiling's rows are the one-ceiling run's bytes");
    }
  }
});

Deno.test("a sweep ceiling list with a repeat or a bad value is refused with exit 2, writing nothing", async () => {
  for (const caps of ["3800,3800", "3800,abc", "100"]) {
    const out = join(tmp, `bad-${caps}`);
    const r = await runCli(["sweep", "run", "--reference", "--input-cap", caps, "--output", out]);
    assert.equal(r.code, 2, caps);
    assert.match(r.stderr, /--input-cap/);
    await assert.rejects(Deno.stat(out));
  }
});

Deno.test("cleanup", async () => {
  await Deno.remove(tmp, { recursive: true });
});
