/**
 * `hotpot run --input-cap 2400,3600`: every compressed method at both ceilings in one run, rankings shared and
 * Full answered once; the report shows both ceilings with CIs and the quality/size frontier; the run verifies
 * and re-derives.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

const tmp = await Deno.makeTempDir({ prefix: "ceiling-sweep-" });
const corpus = join(tmp, "c");
const collected = await runCli(["hotpot", "collect", "-q", "--questions", "4", "--output", corpus]);
if (collected.code !== 0) throw new Error(collected.stderr);
const CORPUS = join(corpus, "corpus.json");

Deno.test("a ceiling sweep runs each compressed method at every ceiling, shares rankings and answers Full once", async () => {
  const out = join(tmp, "sweep");
  const run = await runCli([
    "hotpot",
    "run",
    "--reference",
    "-q",
    "--corpus",
    CORPUS,
    "--input-cap",
    "3600,2400",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--bootstrap",
    "300",
    "--output",
    out,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
  const count = (stage: string) => manifest.nodes.filter((n: { stage: string }) => n.stage === stage).length;
  assert.equal(count("hotpot-rank"), 4, "one ranking per question, shared by both ceilings");
  assert.equal(count("hotpot-answer"), 4 + 4 * 3 * 2, "Full once, each compressed method at each ceiling");
  const rows = JSON.parse(await Deno.readTextFile(join(out, "results.json"))) as {
    method: string;
    input_cap: number | null;
  }[];
  assert.deepEqual(
    [...new Set(rows.map((r) => `${r.method}@${r.input_cap}`))].sort(),
    [
      "full@null",
      "jev+summary@2400",
      "jev+summary@3600",
      "jev@2400",
      "jev@3600",
      "summary@2400",
      "summary@3600",
    ],
  );
  const aggregate = JSON.parse(await Deno.readTextFile(join(out, "aggregate.json"))) as {
    input_cap: number | null;
  }[];
  assert.equal(aggregate.length, 7);
  const report = await Deno.readTextFile(join(out, "REPORT.md"));
  assert.match(report, /^# hotpot \([a-z]+ collection\): compaction under answer-input ceilings 2400, 3600/);
  assert.match(report, /## Results at the 3600-token ceiling/);
  assert.match(report, /\| jev \| 2400 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/);
  assert.match(report, /\| jev \| 3600 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|/);
  const html = await Deno.readTextFile(join(out, "report.html"));
  assert.match(html, /The quality\/size frontier/);
  assert.match(html, /<title>jev at ceiling 2400: EM /);
  assert.match(html, /Full [0-9.]+ \(\d+ tok\)/);
  const stats = JSON.parse(await Deno.readTextFile(join(out, "stats.json")));
  assert.deepEqual(stats.ceilings.map((c: { input_cap: number }) => c.input_cap), [2400, 3600]);
  const verified = await runCli(["verify", "--rederive", out]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  const aggregateRows = aggregate as unknown as { method: string; input_cap: number | null }[];
  assert.deepEqual(
    aggregateRows.slice(0, 4).map((a) => `${a.method}@${a.input_cap}`),
    ["full@null", "jev@3600", "summary@3600", "jev+summary@3600"],
    "the primary (first given) ceiling's aggregates first, as a single-ceiling run has them",
  );
});

Deno.test("a ceiling list with a repeat or a bad value is refused with exit 2", async () => {
  for (const caps of ["3600,3600", "3600,abc", "100"]) {
    const out = join(tmp, `bad-${caps}`);
    const r = await runCli([
      "hotpot",
      "run",
      "--reference",
      "--corpus",
      CORPUS,
      "--input-cap",
      caps,
      "--output",
      out,
    ]);
    assert.equal(r.code, 2, caps);
    assert.match(r.stderr, /--input-cap/);
    await assert.rejects(Deno.stat(out));
  }
});

Deno.test("cleanup", async () => {
  await Deno.remove(tmp, { recursive: true });
});
