/**
 * Sweep shards and merge through the CLI: `sweep run --shard K/3` runs the generations g with g mod 3 = K − 1
 * and records its part in the header; `merge` of the three parts (here a two-ceiling sweep, in any order)
 * publishes results.json, aggregate.json, the reports and stats.json byte for byte as the run done whole, with
 * the same node keys, and verifies (re-derivation included); shards of another protocol or suite, duplicates and
 * gaps are refused with exit 2 and write nothing; a shard is resumed only as the part its header names.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";
import { openRun } from "../src/suites/run_lifecycle.ts";
import { UsageError } from "../src/errors.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);
const readJson = async (run: string, file: string) => JSON.parse(await Deno.readTextFile(join(run, file)));

const tmp = await Deno.makeTempDir({ prefix: "sweep-shards-" });
const OPTIONS = [
  "--compressions",
  "3",
  "--answers",
  "1",
  "--top-n",
  "1-2",
  "--input-cap",
  "3800,5400",
  "--bootstrap",
  "200",
  "-q",
];

async function sweep(out: string, extra: string[] = []): Promise<void> {
  const run = await runCli(["sweep", "run", "--reference", "--output", out, ...OPTIONS, ...extra]);
  assert.equal(run.code, 0, run.stderr);
}

const shards = [1, 2, 3].map((k) => join(tmp, `s${k}`));

Deno.test("three sweep shards merged equal the whole sweep byte for byte, with its node keys, and verify", async () => {
  for (const [i, out] of shards.entries()) await sweep(out, ["--shard", `${i + 1}/3`]);
  await sweep(join(tmp, "whole"));
  for (const [i, out] of shards.entries()) {
    const manifest = await readJson(out, "manifest.json");
    assert.deepEqual(manifest.shard, { index: i + 1, count: 3 });
    const generations = new Set(
      manifest.nodes.map((n: { params: { generation?: number } }) => n.params?.generation)
        .filter((g: number | undefined) => g !== undefined),
    );
    assert.deepEqual([...generations], [i], `shard ${i + 1}/3 runs generation ${i} only`);
  }

  const merged = join(tmp, "merged");
  const merge = await runCli(["merge", merged, shards[2], shards[0], shards[1]]);
  assert.equal(merge.code, 0, merge.stderr);
  for (
    const file of [
      "results.json",
      "aggregate.json",
      "protocol.json",
      "REPORT.md",
      "report.html",
      "stats.json",
    ]
  ) {
    const [a, b] = await Promise.all([join(tmp, "whole"), merged].map((r) => Deno.readFile(join(r, file))));
    assert.deepEqual(b, a, `merged ${file} differs from the whole sweep's`);
  }
  const manifest = await readJson(merged, "manifest.json");
  assert.deepEqual(manifest.merged_from.map((m: { shard: { index: number } }) => m.shard.index), [1, 2, 3]);
  assert.equal(manifest.shard, undefined);
  // The run-header node binds each run's own header, and the published JSON files hang below it.
  const keys = (m: { nodes: { key: string; stage: string }[] }) =>
    m.nodes.filter((n) => n.stage !== "run-header" && n.stage !== "published-json").map((n) => n.key).sort();
  assert.deepEqual(keys(manifest), keys(await readJson(join(tmp, "whole"), "manifest.json")));
  const verified = await runCli(["verify", "--rederive", merged]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

Deno.test("merges of sweep shards of another protocol or suite, duplicate parts and gaps are refused with exit 2", async () => {
  const other = join(tmp, "other");
  await sweep(other, ["--shard", "3/3", "--summary-allowance", "3000"]);
  const hotpotCorpus = join(tmp, "corpus");
  const collected = await runCli(["hotpot", "collect", "-q", "--questions", "2", "--output", hotpotCorpus]);
  assert.equal(collected.code, 0, collected.stderr);
  const hotpotShard = join(tmp, "hotpot-3");
  const hotpot = await runCli([
    "hotpot",
    "run",
    "--reference",
    "-q",
    "--corpus",
    join(hotpotCorpus, "corpus.json"),
    "--methods",
    "full",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--shard",
    "3/3",
    "--output",
    hotpotShard,
  ]);
  assert.equal(hotpot.code, 0, hotpot.stderr);
  const refusals: [string[], RegExp][] = [
    [[shards[0], shards[1], other], /different protocols/],
    [[shards[0], shards[1], hotpotShard], /different suites/],
    [[shards[0], shards[2]], /missing shard\(s\) 2\/3/],
    [[shards[0], shards[1], shards[2], shards[1]], /named twice/],
    [[shards[0], shards[1], shards[2], join(tmp, "merged")], /not a shard/],
  ];
  for (const [runs, message] of refusals) {
    const bad = join(tmp, "bad");
    const refused = await runCli(["merge", bad, ...runs]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, message);
    assert.equal(await exists(bad), false, "a refused merge wrote its output");
  }
  // Two runs of the same part (the same shard made twice) are a duplicate, named with both runs.
  const twin = join(tmp, "s2-again");
  await sweep(twin, ["--shard", "2/3"]);
  const refused = await runCli(["merge", join(tmp, "bad"), shards[0], shards[1], twin, shards[2]]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /duplicate shard 2\/3/);
});

Deno.test("a shard is resumed only as the part its header names: another part or none is a usage error (exit 2) naming the shard", async () => {
  const dir = join(tmp, "unfinished");
  const request = {
    suite: "sweep",
    command: ["sweep", "run"],
    options: {},
    protocol: { suite: "sweep", compressions: 3 },
    tokenizer: null,
  };
  const { run } = await openRun({ ...request, output: dir, shard: { index: 2, count: 3 } });
  await run.abandon();
  for (const shard of [{ index: 1, count: 3 }, { index: 2, count: 4 }, undefined]) {
    await assert.rejects(
      () => openRun({ ...request, resume: dir, shard }),
      (error: unknown) =>
        error instanceof UsageError && /the shard differs from the run's/.test(error.message),
      JSON.stringify(shard),
    );
  }
  const { run: resumed, resumed: wasResumed } = await openRun({
    ...request,
    resume: dir,
    shard: { index: 2, count: 3 },
  });
  assert.equal(wasResumed, true);
  assert.deepEqual(resumed.header.shard, { index: 2, count: 3 });
  await resumed.abandon();
});

Deno.test("sweep --shard must be K/N with 1 ≤ K ≤ N: other values exit 2 naming the option", async () => {
  for (const bad of ["4/3", "0/3", "a/b"]) {
    const r = await runCli(["sweep", "run", "--reference", "--shard", bad, "--output", join(tmp, "x")]);
    assert.equal(r.code, 2, bad);
    assert.match(r.stderr, /--shard \S+: expected K\/N/);
    assert.equal(await exists(join(tmp, "x")), false);
  }
});

Deno.test("cleanup", async () => {
  await Deno.remove(tmp, { recursive: true });
});
