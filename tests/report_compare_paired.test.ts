/**
 * `compare` of hotpot runs pairs questions by id: paired differences with CIs, p-values and the number of
 * pairs; runs over different corpora are refused unless --unpaired, which then says its intervals are
 * unpaired; --html writes a self-contained compare page and never overwrites a file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { compareRuns } from "../src/report/compare.ts";
import { suiteNamed } from "../src/suites/registry.ts";
import { runCli } from "./helpers/spawn.ts";

const tmp = await Deno.makeTempDir({ prefix: "compare-paired-" });
const SMALL = ["--compressions", "1", "--answers", "1", "--bootstrap", "500", "-q"];
const c1 = join(tmp, "c1");
const c2 = join(tmp, "c2");
const collected = await Promise.all([
  runCli(["hotpot", "collect", "-q", "--questions", "4", "--output", c1]),
  runCli(["hotpot", "collect", "-q", "--questions", "4", "--seed", "7", "--output", c2]),
]);
for (const r of collected) if (r.code !== 0) throw new Error(r.stderr);
const a = join(tmp, "a");
const b = join(tmp, "b");
const other = join(tmp, "other");
const runs = await Promise.all([
  runCli(["hotpot", "run", "--reference", "--corpus", join(c1, "corpus.json"), "--output", a, ...SMALL]),
  runCli([
    "hotpot",
    "run",
    "--reference",
    "--corpus",
    join(c1, "corpus.json"),
    "--methods",
    "full,jev",
    "--output",
    b,
    ...SMALL,
  ]),
  runCli(["hotpot", "run", "--reference", "--corpus", join(c2, "corpus.json"), "--output", other, ...SMALL]),
]);
for (const r of runs) if (r.code !== 0) throw new Error(r.stderr);

Deno.test("compare pairs the questions of two hotpot runs over one corpus", async () => {
  const comparison = await compareRuns(a, b, suiteNamed, {
    resamples: 500,
  });
  assert.ok(comparison.units);
  assert.equal(comparison.units.paired, true);
  assert.equal(comparison.units.pairs, 4);
  // Only the methods both runs have are paired; the same reference model gives identical answers: p = 1.
  assert.deepEqual([...new Set(comparison.units.rows.map((r) => r.key))], ["full", "jev"]);
  for (const row of comparison.units.rows) {
    assert.equal(row.n, 4);
    assert.equal(row.diff, 0);
    assert.equal(row.p, 1);
    assert.equal(row.lo, 0);
    assert.equal(row.hi, 0);
  }
  const cli = await runCli(["compare", a, b, "--bootstrap", "500"]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /Paired differences B − A per question, over 4 pairs matched by id/);
  assert.match(cli.stdout, /95% CI/);
  assert.match(cli.stdout, /jev +em +4 +/);
});

Deno.test("compare refuses runs over different corpora unless --unpaired, which says so", async () => {
  const refused = await runCli(["compare", a, other]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /different corpora cannot be paired.*--unpaired/);
  const unpaired = await runCli(["compare", a, other, "--unpaired", "--bootstrap", "500"]);
  assert.equal(unpaired.code, 0, unpaired.stderr);
  assert.match(unpaired.stdout, /UNPAIRED: the runs used different corpora, so the intervals are unpaired/);
  assert.match(unpaired.stdout, /units A\/B/);
  assert.match(unpaired.stdout, /4\/4/);
});

Deno.test("compare --html writes a self-contained page and never overwrites a file", async () => {
  const page = join(tmp, "compare.html");
  const first = await runCli(["compare", a, b, "--bootstrap", "500", "--html", page]);
  assert.equal(first.code, 0, first.stderr);
  const html = await Deno.readTextFile(page);
  assert.match(html, /Paired differences per question/);
  assert.match(html, /\[0\.0, 0\.0\]/);
  for (const forbidden of ["<script", "<link", "<img", "http://", "https://"]) {
    assert.equal(html.includes(forbidden), false, forbidden);
  }
  const again = await runCli(["compare", a, b, "--html", page]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already exists/);
  assert.equal(await Deno.readTextFile(page), html);
});

Deno.test("cleanup", async () => {
  await Deno.remove(tmp, { recursive: true });
});
