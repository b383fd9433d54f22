/**
 * Shards and merge end to end through the CLI: a hotpot run split with --shard K/3 and joined with `merge`
 * publishes the same results.json and aggregate.json, byte for byte, as the run done whole, and verifies;
 * merges of mixed protocols, duplicates and gaps are refused with exit 2 and write nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

async function hotpotRun(corpus: string, out: string, extra: string[] = []) {
  const run = await runCli([
    "hotpot",
    "run",
    "--reference",
    "--quiet",
    "--corpus",
    corpus,
    "--methods",
    "full,jev",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--output",
    out,
    ...extra,
  ]);
  assert.equal(run.code, 0, run.stderr);
}

Deno.test("three hotpot shards merged equal the unsharded run byte for byte, verify, and mixed merges are refused", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "shard-merge-" });
  try {
    const collect = await runCli([
      "hotpot",
      "collect",
      "--questions",
      "6",
      "--quiet",
      "--output",
      join(tmp, "c"),
    ]);
    assert.equal(collect.code, 0, collect.stderr);
    const corpus = join(tmp, "c", "corpus.json");
    await hotpotRun(corpus, join(tmp, "whole"));
    const shards = [1, 2, 3].map((k) => join(tmp, `s${k}`));
    for (const [i, out] of shards.entries()) await hotpotRun(corpus, out, ["--shard", `${i + 1}/3`]);

    // The shards split the questions: disjoint, together all of them; each header records its part.
    const ids = async (run: string) =>
      new Set((JSON.parse(await Deno.readTextFile(join(run, "results.json"))) as { question_id: string }[])
        .map((r) => r.question_id));
    const whole = await ids(join(tmp, "whole"));
    const parts = await Promise.all(shards.map(ids));
    assert.equal(parts.reduce((n, p) => n + p.size, 0), whole.size);
    assert.deepEqual(new Set(parts.flatMap((p) => [...p])), whole);
    for (const [i, out] of shards.entries()) {
      const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
      assert.deepEqual(manifest.shard, { index: i + 1, count: 3 });
    }

    const merged = join(tmp, "merged");
    const merge = await runCli(["merge", merged, shards[2], shards[0], shards[1]]);
    assert.equal(merge.code, 0, merge.stderr);
    for (const file of ["results.json", "aggregate.json", "protocol.json", "corpus.json", "REPORT.md"]) {
      const [a, b] = await Promise.all([join(tmp, "whole"), merged].map((r) => Deno.readFile(join(r, file))));
      assert.deepEqual(b, a, `merged ${file} differs from the unsharded run's`);
    }
    const manifest = JSON.parse(await Deno.readTextFile(join(merged, "manifest.json")));
    assert.deepEqual(manifest.merged_from.map((m: { shard: { index: number } }) => m.shard.index), [1, 2, 3]);
    assert.equal(manifest.shard, undefined);
    // The run-header node binds each run's own header (a merged run records its shards' options), and the
    // published JSON files hang below it: those keys are the run's own; every other key is the whole run's.
    const ownHeader = (n: { stage: string }) => n.stage !== "run-header" && n.stage !== "published-json";
    const wholeKeys = JSON.parse(await Deno.readTextFile(join(tmp, "whole", "manifest.json"))).nodes
      .filter(ownHeader).map((n: { key: string }) => n.key).sort();
    assert.deepEqual(manifest.nodes.filter(ownHeader).map((n: { key: string }) => n.key).sort(), wholeKeys);
    const verify = await runCli(["verify", merged]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);

    // Refusals: exit 2, naming the cause, nothing written.
    await hotpotRun(corpus, join(tmp, "other"), ["--shard", "3/3", "--input-cap", "3000"]);
    const refusals: [string[], RegExp][] = [
      [[shards[0], shards[1], join(tmp, "other")], /different protocols/],
      [[shards[0], shards[1]], /missing shard\(s\) 3\/3/],
      [[shards[0], shards[1], shards[2], shards[1]], /named twice/],
      [[shards[0], shards[1], join(tmp, "whole")], /not a shard/],
    ];
    for (const [runs, message] of refusals) {
      const bad = join(tmp, "bad");
      const refused = await runCli(["merge", bad, ...runs]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, message);
      assert.equal(await exists(bad), false, "a refused merge wrote its output");
    }
    const again = await runCli(["merge", merged, ...shards]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exists/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("--shard must be K/N with 1 ≤ K ≤ N: other values exit 2 naming the option", async () => {
  for (const bad of ["4/3", "0/3", "1/0", "a/b", "1"]) {
    const run = await runCli(["hotpot", "run", "--reference", "--corpus", "x.json", "--shard", bad]);
    assert.equal(run.code, 2, bad);
    assert.match(run.stderr, /--shard \S+: expected K\/N/);
  }
});
