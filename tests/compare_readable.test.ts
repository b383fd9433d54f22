/**
 * `compare` reads consistently: shares in percentage points in every table (never a fraction beside points),
 * no negative zero, aligned help, the reference-model notice, a chart of the differences on its page, and
 * the path it wrote the page to.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { comparisonRows, type RunComparison, withoutNegativeZero } from "../src/report/compare.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "compare_readable_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test("withoutNegativeZero and the aggregate rows: points, signs, no -0.0", () => {
  assert.equal(withoutNegativeZero("-0.0 [-0.0, 0.0]"), "0.0 [0.0, 0.0]");
  assert.equal(withoutNegativeZero("-0.05 [-10.0, -0]"), "-0.05 [-10.0, 0]");
  const comparison = {
    metrics: [
      { key: "jev", metric: "em", a: 0.3684, b: 0.4, delta: 0.4 - 0.3684 },
      { key: "jev", metric: "f1", a: 0.5, b: 0.4999999, delta: -0.0000001 },
      { key: "jev", metric: "valid", a: 120, b: 118, delta: -2 },
      { key: "jev", metric: "input_tokens_mean", a: 3496.9, b: 3495.125, delta: -1.7751 },
    ],
  } as unknown as RunComparison;
  assert.deepEqual(comparisonRows(comparison, new Set(["em", "f1"])), [
    ["jev", "em (points)", "36.8", "40.0", "+3.2"],
    ["jev", "f1 (points)", "50.0", "50.0", "0.0"],
    ["jev", "valid", "120", "118", "-2"],
    ["jev", "input_tokens_mean", "3496.90", "3495.13", "-1.78"],
  ]);
});

Deno.test("compare --html: where it wrote, a chart, the reference notice; help aligned", async () => {
  const collect = await runCli(["hotpot", "collect", "-q", "--questions", "2", "--output", join(dir, "c")]);
  assert.equal(collect.code, 0, collect.stderr);
  const run = (name: string, extra: string[]) =>
    runCli(["hotpot", "run", "--reference", "-q", "--corpus", join(dir, "c", "corpus.json")].concat(
      ["--compressions", "1", "--answers", "1", "--output", join(dir, name), ...extra],
    ));
  assert.equal((await run("a", [])).code, 0);
  assert.equal((await run("b", ["--input-cap", "3000"])).code, 0);
  const page = join(dir, "compare.html");
  const compared = await runCli(["compare", join(dir, "a"), join(dir, "b"), "--html", page]);
  assert.equal(compared.code, 0, compared.stderr);
  assert.match(compared.stdout, new RegExp(`wrote ${page}\\n$`));
  assert.match(compared.stdout, /Reference model\. At least one of these runs/);
  assert.match(compared.stdout, /em \(points\) +\d+\.\d +\d+\.\d/);
  assert.doesNotMatch(compared.stdout, /0\.\d{4}/, "a fraction beside points");
  assert.doesNotMatch(compared.stdout, /(^|[^\d.])-0\.0(?![\d])/m);
  const html = await Deno.readTextFile(page);
  assert.match(html, /<svg/);
  assert.match(html, /B − A, em \(percentage points, 95% CI\)/);
  assert.match(html, /class="banner"[^>]*>Reference model\./);
  const json = await runCli([
    "compare",
    join(dir, "a"),
    join(dir, "b"),
    "--json",
    "--html",
    join(dir, "2.html"),
  ]);
  assert.equal(json.code, 0);
  JSON.parse(json.stdout);
  assert.match(json.stderr, /wrote .*2\.html/);

  const help = await runCli(["compare", "--help"]);
  const options = help.stdout.split("\n").filter((line) => /^ {2}-/.test(line));
  const columns = new Set(options.map((line) => /^ {2}(?:-\w, )?--?\S+(?: [A-Z]+)? +/.exec(line)![0].length));
  assert.equal(columns.size, 1, `descriptions start at different columns:\n${options.join("\n")}`);
});
