/**
 * A question whose collection failed its checks stays in the denominator: every condition of it is invalid with
 * the collection's reason, scores zero, and makes no provider call. A corpus with no valid trajectory is refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

Deno.test("an invalid collection makes every condition of its question invalid, zero, and uncalled", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "hotpot-invalid-" });
  try {
    const collect = await runCli([
      "hotpot",
      "collect",
      "--questions",
      "2",
      "--output",
      join(tmp, "c"),
      "--quiet",
    ]);
    assert.equal(collect.code, 0, collect.stderr);
    const corpus = JSON.parse(await Deno.readTextFile(join(tmp, "c", "corpus.json")));
    const bad = corpus.questions[0];
    bad.valid = false;
    bad.reason = "article X not read whole";
    await Deno.writeTextFile(join(tmp, "corpus.json"), JSON.stringify(corpus));
    const out = join(tmp, "run");
    const run = await runCli([
      "hotpot",
      "run",
      "--corpus",
      join(tmp, "corpus.json"),
      "--reference",
      "--output",
      out,
      "--quiet",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const rows = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
    const mine = rows.filter((r: { question_id: string }) => r.question_id === bad.id);
    assert.equal(mine.length, 16);
    for (const r of mine) {
      assert.equal(r.status, "invalid");
      assert.equal(r.metrics.em, 0);
      assert.equal(r.input_tokens, null);
    }
    const aggregate = JSON.parse(await Deno.readTextFile(join(out, "aggregate.json")));
    for (const a of aggregate) assert.equal(a.planned - a.valid, 4);
    const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
    const calls = manifest.nodes
      .filter((n: { label: string }) => n.label.includes(bad.id))
      .reduce((sum: number, n: { usage: { calls: number } }) => sum + n.usage.calls, 0);
    assert.equal(calls, 0);
    assert.match(await Deno.readTextFile(join(out, "REPORT.md")), /article X not read whole/);

    // A corpus with no valid trajectory at all is refused: every condition would be invalid (exit 2, no run).
    for (const q of corpus.questions) q.valid = false;
    await Deno.writeTextFile(join(tmp, "none.json"), JSON.stringify(corpus));
    const none = await runCli(
      [
        "hotpot",
        "run",
        "--reference",
        "-q",
        "--corpus",
        join(tmp, "none.json"),
        "--output",
        join(tmp, "none"),
      ],
    );
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /^error: --corpus .*none\.json: no question has a valid trajectory \(0 of 2\)/);
    assert.match(none.stderr, /article X not read whole/);
    await assert.rejects(Deno.stat(join(tmp, "none")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
