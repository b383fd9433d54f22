/**
 * README's real-HotpotQA path on the 20 real records vendored in tests/fixtures/shared_data/ (Hugging Face
 * Parquet layout): `hotpot collect --scripted` with the options the refusal names, `hotpot run`, a report that
 * says the ceiling did not bind, and `hotpot predictions` re-scored by `hotpot score` to the run's own figures.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ceilingBindText } from "../src/suites/hotpot/report/report.ts";
import type { HotpotMethodAggregate } from "../src/suites/hotpot/run/aggregate.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_real_path_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const REAL20 = join(ROOT, "tests", "fixtures", "shared_data", "hotpot_dev_real20.hf.parquet");

Deno.test("ceilingBindText counts the questions whose Full context is within the ceiling", () => {
  const full = { method: "full", over_cap: 3 } as unknown as HotpotMethodAggregate;
  assert.equal(
    ceilingBindText([full], 10, 3600),
    "Ceiling: the ceiling did not bind for 7 of 10 questions (their Full context is within 3600 tokens, so " +
      "they needed no compaction)",
  );
  assert.match(
    ceilingBindText([{ ...full, over_cap: 0 }], 4, 3600),
    /for 4 of 4 .*compaction was not needed/,
  );
  assert.equal(ceilingBindText([], 4, 3600), "");
});

Deno.test("real records: collect with the named options, run, the ceiling note, predictions re-scored", async () => {
  const refused = await runCli([
    "hotpot",
    "collect",
    "--scripted",
    "--dataset",
    REAL20,
    "--output",
    join(dir, "x"),
  ]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--min-chars\/--max-chars/);
  const corpus = join(dir, "corpus");
  const collected = await runCli([
    "hotpot",
    "collect",
    "-q",
    "--scripted",
    "--dataset",
    REAL20,
    "--bridge",
    "12",
    "--comparison",
    "7",
    "--min-chars",
    "1000",
    "--output",
    corpus,
  ]);
  assert.equal(collected.code, 0, collected.stderr);
  const run = join(dir, "run");
  const ran = await runCli([
    "hotpot",
    "run",
    "--reference",
    "-q",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--corpus",
    join(corpus, "corpus.json"),
    "--output",
    run,
  ]);
  assert.equal(ran.code, 0, ran.stderr);
  const report = await Deno.readTextFile(join(run, "REPORT.md"));
  assert.match(report, /the ceiling did not bind for 19 of 19 questions/);
  const html = await Deno.readTextFile(join(run, "report.html"));
  assert.match(html, /the ceiling did not bind for 19 of 19 questions/);
  // A run that tests nothing says so first: a warning heads REPORT.md, report.html and the terminal summary,
  // which ends with the hypothesis's verdict.
  const warning = /Warning\.\*?\*? The ceiling did not bind for 19 of 19 questions/;
  assert.match(report.split("\n").slice(0, 4).join("\n"), warning);
  assert.ok(
    html.search(/<strong>Warning\.<\/strong> The ceiling did not bind/) < html.indexOf("<h2>Run</h2>"),
  );
  assert.match(ran.stdout.split("\n")[0], /^warning: The ceiling did not bind for 19 of 19 questions/);
  assert.match(ran.stdout, /\n {2}verdict \(descriptive\): (holds|does not hold)[^\n]*\n\nrun: /);
  const pred = join(dir, "full.json");
  const gold = join(dir, "gold.json");
  const exported = await runCli([
    "hotpot",
    "predictions",
    run,
    "--method",
    "full",
    "--output",
    pred,
    "--gold-output",
    gold,
  ]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /19 prediction\(s\) of full .* written to/);
  const scored = await runCli(["hotpot", "score", "--gold", gold, "--pred", pred]);
  assert.equal(scored.code, 0, scored.stderr);
  const rows: { method: string; metrics: Record<string, number> }[] = JSON.parse(
    await Deno.readTextFile(join(run, "results.json")),
  );
  const full = rows.filter((r) => r.method === "full");
  const em = full.reduce((sum, r) => sum + r.metrics.em, 0) / full.length;
  assert.ok(Math.abs(JSON.parse(scored.stdout).em - em) < 1e-12);
});
