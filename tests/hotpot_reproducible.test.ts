/**
 * Reproducibility: a corpus names no machine-specific path, and two runs of the same corpus in different
 * directories produce the same node keys and byte-identical results.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "./helpers/spawn.ts";

Deno.test("two hotpot runs of one corpus have the same node keys and byte-identical results", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "hotpot-repro-" });
  try {
    const corpusRun = join(tmp, "corpus");
    const collect = await runCli(["hotpot", "collect", "--questions", "4", "--output", corpusRun, "--quiet"]);
    assert.equal(collect.code, 0, collect.stderr);
    const corpusText = await Deno.readTextFile(join(corpusRun, "corpus.json"));
    assert.equal(JSON.parse(corpusText).dataset.path, "embedded:fixtures/hotpot/demo.parquet");
    assert.ok(!corpusText.includes(ROOT.replace(/\/$/, "")), "corpus.json names the install path");

    const runs = [join(tmp, "one"), join(tmp, "elsewhere", "two")];
    for (const out of runs) {
      const run = await runCli([
        "hotpot",
        "run",
        "--corpus",
        join(corpusRun, "corpus.json"),
        "--reference",
        "--compressions",
        "1",
        "--answers",
        "1",
        "--output",
        out,
        "--quiet",
      ]);
      assert.equal(run.code, 0, run.stderr);
    }
    for (const file of ["results.json", "aggregate.json", "protocol.json", "REPORT.md", "report.html"]) {
      const [a, b] = await Promise.all(runs.map((r) => Deno.readFile(join(r, file))));
      assert.deepEqual(a, b, `${file} differs between the two runs`);
    }
    const keys = await Promise.all(runs.map(async (r) => {
      const manifest = JSON.parse(await Deno.readTextFile(join(r, "manifest.json")));
      return manifest.nodes.map((n: { key: string }) => n.key).sort();
    }));
    assert.deepEqual(keys[0], keys[1]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("corpora collected from one dataset at two paths give the same method, answer and score keys", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "hotpot-repro-paths-" });
  try {
    const demo = await Deno.readFile(join(ROOT, "fixtures", "hotpot", "demo.parquet"));
    const keysOf = async (name: string) => {
      await Deno.mkdir(join(tmp, name));
      const dataset = join(tmp, name, "data.parquet");
      await Deno.writeFile(dataset, demo);
      const corpus = join(tmp, name, "corpus");
      const collect = await runCli([
        "hotpot",
        "collect",
        "--dataset",
        dataset,
        "--scripted",
        "--questions",
        "2",
        "--output",
        corpus,
        "-q",
      ]);
      assert.equal(collect.code, 0, collect.stderr);
      const out = join(tmp, name, "run");
      const run = await runCli([
        "hotpot",
        "run",
        "--corpus",
        join(corpus, "corpus.json"),
        "--reference",
        "--compressions",
        "1",
        "--answers",
        "1",
        "--output",
        out,
        "-q",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
      return manifest.nodes
        // The question and corpus head nodes read the corpus, the aggregate takes the head by hash, and the
        // report and protocol.json name the dataset's path and hash.
        .filter((n: { stage: string }) =>
          !["hotpot-corpus-head", "hotpot-question", "hotpot-aggregate", "hotpot-report", "published-json"]
            .includes(n.stage)
        )
        .map((n: { key: string }) => n.key)
        .sort();
    };
    const [a, b] = [await keysOf("one"), await keysOf("two")];
    assert.ok(a.length > 10);
    assert.deepEqual(a, b);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
