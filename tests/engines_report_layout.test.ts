/**
 * The engines report reads well: REPORT.md has a title; report.html's results table joins related columns so
 * that it fits a 1,400-pixel window (estimated from its widest cells), and chart labels such as
 * "hermes-like (reimplementation)" wrap onto a second line instead of being cut.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ENGINE_HTML_TABLE_HEADER } from "../src/suites/engines/report.ts";
import { barChart } from "../src/report/charts.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "engines_report_layout_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test("engines REPORT.md has a title and report.html's table fits a 1,400-pixel window", async () => {
  const out = join(dir, "e");
  const ran = await runCli([
    "engines",
    "run",
    "--reference",
    "-q",
    "--repeats",
    "1",
    "--turns",
    "40",
    "--output",
    out,
  ]);
  assert.equal(ran.code, 0, ran.stderr);
  const report = await Deno.readTextFile(join(out, "REPORT.md"));
  assert.match(report.split("\n")[0], /^# engines: context engines head to head$/);
  const html = await Deno.readTextFile(join(out, "report.html"));
  const table = /<div style="font-size: 0.86em"><div class="table-wrap"><table>([\s\S]*?)<\/table>/.exec(
    html,
  );
  assert.ok(table, "the compact results table");
  const rows = [...table[1].matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1].replace(/<[^>]+>/g, ""))
  );
  assert.equal(rows[0].length, ENGINE_HTML_TABLE_HEADER.length);
  // Each column is as wide as its widest cell (a header wraps at spaces, the engine name and status too);
  // 15 px × 0.86 × 0.9 type is about 6.2 px a character; 18 px of padding and border a cell. The page body
  // is at most 1,180 px wide with 28 px padding each side, so the table has 1,124 px in a 1,400 px window.
  const widths = rows[0].map((_, i) =>
    Math.max(
      ...rows.map((r, k) => {
        const cell = r[i] ?? "";
        // Headers and the left-aligned columns wrap at spaces; numeric cells do not.
        const words = k === 0 || i <= 2 ? cell.split(/\s+/) : [cell];
        return Math.max(...words.map((w) => w.length));
      }),
    )
  );
  const estimate = widths.reduce((sum, w) => sum + w * 6.2 + 18, 0);
  assert.ok(estimate <= 1124, `estimated table width ${Math.round(estimate)} px: ${widths.join(",")}`);
});

Deno.test("a long category label wraps onto a second line instead of being cut", () => {
  const categories = [
    "truncate",
    "summary",
    "hermes-like (reimplementation)",
    "jev",
    "jev+summary",
    "llmlingua",
  ];
  const svg = barChart({
    title: "saved",
    categories,
    series: [{ name: "a", values: [1, 2, 3, 4, 5, 6] }, { name: "b", values: [1, 2, 3, 4, 5, 6] }],
    format: (v) => `${v}%`,
    yLabel: "%",
  }).toString();
  assert.doesNotMatch(svg, /…/);
  assert.match(svg, />hermes-like<\/text>/);
  assert.match(svg, />\(reimplementation\)<\/text>/);
});
