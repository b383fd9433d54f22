/**
 * `hotpot collect --shard K/N` and `merge` of collect shards end to end through the CLI: the shards collect
 * disjoint parts of one selection, merged they publish the unsharded collection's corpus.json and
 * selection.json byte for byte and verify; a shard's corpus is refused by `hotpot run`; `hotpot run` shards
 * over the merged corpus merge into the whole run with the shards' report options; merges of different
 * protocols, programs or datasets, duplicates and gaps exit 2 naming them and write nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";
import { copyRun } from "./helpers/reseal.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

async function collect(out: string, extra: string[] = []): Promise<void> {
  const run = await runCli(["hotpot", "collect", "--questions", "6", "--quiet", "--output", out, ...extra]);
  assert.equal(run.code, 0, run.stderr);
}

async function manifestOf(run: string) {
  return JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
}

async function corpusOf(run: string) {
  return JSON.parse(await Deno.readTextFile(join(run, "corpus.json")));
}

async function hotpotRun(corpus: string, out: string, extra: string[] = []): Promise<void> {
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
    "--bootstrap",
    "200",
    "--output",
    out,
    ...extra,
  ]);
  assert.equal(run.code, 0, run.stderr);
}

// The three collect shards of the 6-question selection, collected once: the first two tests only read them
// (merges write elsewhere, changed copies are made with copyRun).
const PARTS = await Deno.makeTempDir({ prefix: "collect-shards-parts-" });
globalThis.addEventListener("unload", () => Deno.removeSync(PARTS, { recursive: true }));
const SHARDS = [1, 2, 3].map((k) => join(PARTS, `s${k}`));
await Promise.all(SHARDS.map((out, i) => collect(out, ["--shard", `${i + 1}/3`])));

Deno.test("collect shards merged equal the unsharded collection byte for byte, and run shards over it merge whole", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "collect-shards-" });
  try {
    await collect(join(tmp, "whole"));
    const shards = SHARDS;

    // Each shard records its part in the header and in corpus.json, and holds the whole selection's select
    // node; the parts are disjoint and together the whole selection, in its order.
    const whole = await corpusOf(join(tmp, "whole"));
    const wholeManifest = await manifestOf(join(tmp, "whole"));
    const selectKey = wholeManifest.nodes.find((n: { stage: string }) => n.stage === "hotpot-select").key;
    const parts: string[][] = [];
    for (const [i, out] of shards.entries()) {
      const manifest = await manifestOf(out);
      assert.deepEqual(manifest.shard, { index: i + 1, count: 3 });
      assert.equal(manifest.nodes.find((n: { stage: string }) => n.stage === "hotpot-select").key, selectKey);
      const corpus = await corpusOf(out);
      assert.deepEqual(corpus.shard, { index: i + 1, count: 3 });
      assert.deepEqual(
        Object.keys(corpus.gold).sort(),
        corpus.questions.map((q: { id: string }) => q.id).sort(),
      );
      parts.push(corpus.questions.map((q: { id: string }) => q.id));
    }
    const ids: string[] = whole.questions.map((q: { id: string }) => q.id);
    assert.equal(parts.flat().length, ids.length);
    assert.deepEqual(new Set(parts.flat()), new Set(ids));
    assert.ok(parts.every((p) => p.length < ids.length), "no shard holds every question");

    // A shard's corpus is a part: hotpot run refuses it by name.
    const partRun = await runCli([
      "hotpot",
      "run",
      "--reference",
      "--corpus",
      join(shards[0], "corpus.json"),
      "--output",
      join(tmp, "part-run"),
    ]);
    assert.equal(partRun.code, 2);
    assert.match(partRun.stderr, /collect shard 1\/3 holds only that part of the selection; join the shards/);
    assert.equal(await exists(join(tmp, "part-run")), false);

    const merged = join(tmp, "merged");
    const merge = await runCli(["merge", merged, shards[2], shards[0], shards[1]]);
    assert.equal(merge.code, 0, merge.stderr);
    for (const file of ["corpus.json", "selection.json"]) {
      const [a, b] = await Promise.all([join(tmp, "whole"), merged].map((r) => Deno.readFile(join(r, file))));
      assert.deepEqual(b, a, `merged ${file} differs from the unsharded collection's`);
    }
    const manifest = await manifestOf(merged);
    assert.equal(manifest.suite, "hotpot-collect");
    assert.equal(manifest.shard, undefined);
    assert.deepEqual(manifest.merged_from.map((m: { shard: { index: number } }) => m.shard.index), [1, 2, 3]);
    assert.deepEqual(manifest.sources, wholeManifest.sources);
    // The run-header node binds each run's own header, and the published JSON files hang below it.
    const keys = (m: { nodes: { key: string; stage: string }[] }) =>
      m.nodes.filter((n) => n.stage !== "run-header" && n.stage !== "published-json").map((n) => n.key)
        .sort();
    assert.deepEqual(keys(manifest), keys(wholeManifest));
    const verify = await runCli(["verify", "--rederive", merged]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);

    // hotpot run shards over the merged corpus join into the whole run, report options (--bootstrap) included.
    const corpus = join(merged, "corpus.json");
    await hotpotRun(corpus, join(tmp, "run-whole"));
    const runShards = [1, 2].map((k) => join(tmp, `r${k}`));
    for (const [i, out] of runShards.entries()) await hotpotRun(corpus, out, ["--shard", `${i + 1}/2`]);
    const runMerged = join(tmp, "run-merged");
    const runMerge = await runCli(["merge", runMerged, ...runShards]);
    assert.equal(runMerge.code, 0, runMerge.stderr);
    for (const file of ["results.json", "aggregate.json", "stats.json", "REPORT.md", "report.html"]) {
      const [a, b] = await Promise.all(
        [join(tmp, "run-whole"), runMerged].map((r) => Deno.readFile(join(r, file))),
      );
      assert.deepEqual(b, a, `merged ${file} differs from the unsharded run's`);
    }
    assert.match(await Deno.readTextFile(join(runMerged, "REPORT.md")), /200 resamples/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("merges of collect shards of different protocols, programs or datasets, duplicates and gaps exit 2", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "collect-shards-refused-" });
  try {
    const [s1, s2, s3] = SHARDS;
    // Another selection seed: another protocol.
    const seed = join(tmp, "seed");
    await collect(seed, ["--shard", "3/3", "--seed", "7"]);
    // Another dataset (same protocol): other sources.
    const dataset = join(tmp, "other.json");
    const generated = await runCli(["hotpot", "generate", "--records", "40", "--out", dataset]);
    assert.equal(generated.code, 0, generated.stderr);
    const other = join(tmp, "other");
    await collect(other, ["--shard", "3/3", "--dataset", dataset, "--scripted"]);
    // Another program: a copy of shard 3 whose header names another version.
    const program = join(tmp, "program");
    await copyRun(s3, program);
    const manifest = await manifestOf(program);
    manifest.program.version = "0.0.0-other";
    await Deno.remove(join(program, "manifest.json"));
    await Deno.writeTextFile(join(program, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
    // Shard 1 of another count.
    const halves = join(tmp, "halves");
    await collect(halves, ["--shard", "1/2"]);
    const copy1 = join(tmp, "copy1");
    await copyRun(s1, copy1);
    // Shard 2 with one question's collect node dropped from its manifest: a gap inside a part.
    const holed = join(tmp, "holed");
    await copyRun(s2, holed);
    const holedManifest = await manifestOf(holed);
    const dropped = holedManifest.nodes.findIndex((n: { stage: string }) => n.stage === "hotpot-collect");
    assert.ok(dropped >= 0, "shard 2/3 collects at least one question");
    const droppedId = holedManifest.nodes[dropped].params.id;
    holedManifest.nodes.splice(dropped, 1);
    await Deno.remove(join(holed, "manifest.json"));
    await Deno.writeTextFile(join(holed, "manifest.json"), JSON.stringify(holedManifest, null, 2) + "\n");

    const refusals: [string[], RegExp][] = [
      [[s1, s2, seed], new RegExp(`different protocols: ${s1} and ${seed} differ in protocol`)],
      [[s1, s2, other], new RegExp(`different sources \\(corpora or datasets\\): ${s1} and ${other}`)],
      [[s1, s2, program], new RegExp(`different programs: ${s1} and ${program} differ in program`)],
      [[s1, s2, halves], /different shard counts/],
      [[s1, s2, s3, copy1], new RegExp(`duplicate shard 1/3: ${s1} and ${copy1}`)],
      [[s1, s3], /missing shard\(s\) 2\/3/],
      [[s1, holed, s3], new RegExp(`no shard holds the collection of question ${droppedId}`)],
    ];
    for (const [runs, message] of refusals) {
      const bad = join(tmp, "bad");
      const refused = await runCli(["merge", bad, ...runs]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, message);
      assert.equal(await exists(bad), false, "a refused merge wrote its output");
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a collect shard whose part holds no question finishes with exit 0 and merges with the others", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "collect-shards-empty-" });
  try {
    // Two questions in eight parts: at least six parts are empty.
    const shards = Array.from({ length: 8 }, (_, i) => join(tmp, `s${i + 1}`));
    for (const [i, out] of shards.entries()) {
      const run = await runCli([
        "hotpot",
        "collect",
        "--questions",
        "2",
        "--quiet",
        "--shard",
        `${i + 1}/8`,
        "--output",
        out,
      ]);
      assert.equal(run.code, 0, run.stderr);
    }
    const sizes = await Promise.all(shards.map(async (s) => (await corpusOf(s)).questions.length));
    assert.equal(sizes.reduce((a, b) => a + b, 0), 2);
    assert.ok(sizes.filter((n) => n === 0).length >= 6);
    const whole = join(tmp, "whole");
    const run = await runCli(["hotpot", "collect", "--questions", "2", "--quiet", "--output", whole]);
    assert.equal(run.code, 0, run.stderr);
    const merged = join(tmp, "merged");
    const merge = await runCli(["merge", merged, ...shards]);
    assert.equal(merge.code, 0, merge.stderr);
    assert.deepEqual(
      await Deno.readFile(join(merged, "corpus.json")),
      await Deno.readFile(join(whole, "corpus.json")),
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
