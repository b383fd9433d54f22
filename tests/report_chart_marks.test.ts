/**
 * Charts a person can read whole: no interval is cut without a mark (the axis takes an interval's low end; an
 * end past a fixed axis is an arrowhead, its title says so), legends wrap into rows instead of running off the
 * picture ("hermes-like (reimplementatio"), category labels wrap before they are shortened; and `compare` marks
 * a unit row whose A or B condition was mostly invalid "not a finding", in its table and its chart.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { barChart, lineChart } from "../src/report/charts.ts";
import { curveChart } from "../src/suites/engines/curve.ts";
import { unitComparison } from "../src/report/compare_units.ts";
import { compareHtml, unitHeaders, unitRows } from "../src/report/compare_view.ts";
import { HOTPOT_COMPARE_UNITS } from "../src/suites/hotpot/report/compare_units.ts";
import type { RunComparison } from "../src/report/compare.ts";

/** Every `<text>` of an SVG: its x, anchor, font size and content (tags inside stripped). */
function texts(svg: string): { x: number; anchor: string; size: number; text: string }[] {
  return [...svg.matchAll(/<text ([^>]*)>(.*?)<\/text>/g)].map((m) => {
    const attr = (name: string) => m[1].match(new RegExp(`(?:^| )${name}="([^"]*)"`))?.[1];
    return {
      x: Number(attr("x")),
      anchor: attr("text-anchor") ?? "start",
      size: Number(attr("font-size")),
      text: m[2].replace(/<title>.*?<\/title>/g, "").replace(/<[^>]+>/g, ""),
    };
  });
}

/** The right end of a start-anchored text (about 0.6 em per character). */
const rightEnd = (t: { x: number; size: number; text: string }) => t.x + t.text.length * t.size * 0.6;

Deno.test("an interval below the data is inside the axis; one past a fixed top ends in an arrowhead", () => {
  const svg = barChart({
    title: "t",
    categories: ["a", "b"],
    series: [{ name: "d", values: [-2, 3], errors: [{ lo: -31, hi: 20 }, { lo: 1, hi: 5 }] }],
    format: (v) => v.toFixed(1),
    yLabel: "y",
  }).markup;
  assert.equal(svg.includes("runs past the axis"), false, "the automatic axis holds the whole interval");
  const ticks = texts(svg).filter((t) => t.anchor === "end").map((t) => Number(t.text));
  assert.ok(Math.min(...ticks) <= -31, `lowest tick ${Math.min(...ticks)} is below the interval's −31`);
  const capped = barChart({
    title: "t",
    categories: ["a"],
    series: [{ name: "d", values: [90], errors: [{ lo: 80, hi: 120 }] }],
    format: (v) => v.toFixed(1),
    yLabel: "y",
    max: 100,
  }).markup;
  assert.match(capped, /\[80\.0, 120\.0\] \(the interval runs past the axis: arrowhead\)/);
  assert.equal((capped.match(/<path d="M/g) ?? []).length, 1, "one arrowhead, at the top");
  const line = lineChart({
    title: "t",
    x: [1, 2],
    xTick: String,
    xLabel: "x",
    yLabel: "y",
    series: [{ name: "s", values: [95, 50], errors: [{ lo: 90, hi: 104 }, null] }],
    format: (v) => v.toFixed(0),
    max: 100,
  }).markup;
  assert.match(line, /runs past the axis/);
});

Deno.test("legends wrap into rows and keep every name whole, inside the picture", () => {
  const names = [
    "hermes-like (reimplementation)",
    "lean-ctx (outside engine)",
    "jev+summary at fusion share 0.4",
    "truncate (keep the most recent turns)",
    "summary (reference summarizer)",
  ];
  const svg = barChart({
    title: "t",
    categories: ["x", "y"],
    series: names.map((name, i) => ({ name, values: [i, i + 1] })),
    format: String,
    yLabel: "y",
    referenceLines: [{ label: "ceiling 3600 tokens (reserve 64)", value: 3 }],
  }).markup;
  const width = Number(svg.match(/<svg width="(\d+)"/)![1]);
  const legend = texts(svg).filter((t) => [...names, "ceiling 3600 tokens (reserve 64)"].includes(t.text));
  assert.equal(legend.length, names.length + 1, "every name whole");
  for (const t of legend) assert.ok(rightEnd(t) <= width, `${t.text} ends at ${rightEnd(t)} > ${width}`);
  const rows = new Set(
    legend.map((t) =>
      svg.match(
        new RegExp(`y="([\\d.]+)" font-size="12" fill="#1b1f24">${t.text.replace(/[()+.]/g, "\\$&")}<`),
      )![1]
    ),
  );
  assert.ok(rows.size >= 2, "the legend took several rows");
  const curve = curveChart({
    title: "c",
    xLabel: "tokens",
    yLabel: "recall",
    yMax: 100,
    series: [{ name: "hermes-like (reimplementation)", points: [{ x: 100, y: 50, label: "b=100" }] }],
  }).markup;
  const curveWidth = Number(curve.match(/width="(\d+)"/)![1]);
  const parts = texts(curve).filter((t) => ["hermes-like", "(reimplementation)"].includes(t.text));
  assert.equal(parts.length, 2, "the curve's legend wraps the name onto two lines");
  for (const t of parts) assert.ok(rightEnd(t) <= curveWidth, `${t.text} ends past ${curveWidth}`);
});

Deno.test("a long category label wraps (to three lines) and the chart widens for its longest word", () => {
  const label = "hermes-like (reimplementation) with recall tools";
  const svg = barChart({
    title: "t",
    categories: [label, "b", "c", "d", "e", "f", "g", "h"],
    series: [{ name: "s", values: [1, 2, 3, 4, 5, 6, 7, 8] }],
    format: String,
    yLabel: "y",
  }).markup;
  const lines = texts(svg).filter((t) =>
    t.anchor === "middle" && label.includes(t.text) && t.text.length > 3
  );
  assert.equal(lines.map((t) => t.text).join(" "), label);
  assert.equal(svg.includes("…"), false);
});

Deno.test("compare marks a unit row whose side was mostly invalid 'not a finding'", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chart-marks-" });
  try {
    const row = (q: number, method: string, ok: boolean, em: number) => ({
      question_id: `q${q}`,
      method,
      status: ok ? "ok" : "invalid",
      metrics: { em, f1: em, joint_f1: em },
      sp_survival: ok ? 1 : null,
    });
    const runA = Array.from({ length: 6 }, (_, q) => [row(q, "full", true, 1), row(q, "jev", q < 2, q % 2)])
      .flat();
    const runB = Array.from({ length: 6 }, (_, q) => [row(q, "full", true, q % 2), row(q, "jev", true, 1)])
      .flat();
    for (const [name, rows] of [["a", runA], ["b", runB]] as const) {
      await Deno.mkdir(join(dir, name));
      await Deno.writeTextFile(join(dir, name, "results.json"), JSON.stringify(rows));
    }
    const units = (await unitComparison(join(dir, "a"), join(dir, "b"), HOTPOT_COMPARE_UNITS, {
      paired: true,
      resamples: 200,
    }))!;
    const jev = units.rows.filter((r) => r.key === "jev");
    const full = units.rows.filter((r) => r.key === "full");
    for (const r of jev) assert.equal(r.note, "not a finding: mostly invalid conditions (A 67% invalid)");
    for (const r of full) assert.equal(r.note, null);
    assert.equal(unitHeaders(units).at(-1), "note");
    assert.equal(unitRows(units)[units.rows.indexOf(jev[0])].at(-1), jev[0].note);
    const side = { path: "x", created: "t", models: null, sources: {}, metrics: {} };
    const page = compareHtml(
      {
        suite: "hotpot",
        a: side,
        b: side,
        same_sources: true,
        units,
        metrics: [],
      } as unknown as RunComparison,
      new Set(),
    );
    assert.match(page, /fill="#b42318">not a finding<\/text>/, "the chart marks it under its label");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
