/**
 * How `compare` shows its unit-level differences: a text table for the terminal, and compare.html (one
 * self-contained page, like the reports).
 *
 * @module
 */
import { formatDifference, formatP, formatPoints } from "../analysis/format.ts";
import type { RunComparison } from "./compare.ts";
import { comparisonModelLines, comparisonRows } from "./compare.ts";
import type { UnitComparison } from "./compare_units.ts";
import { factList, htmlPage, htmlTable, paragraphs, safeHtml } from "./html.ts";
import type { Cell } from "../core/markdown_table.ts";

/** Headers of the unit-level table. */
export function unitHeaders(units: UnitComparison): string[] {
  return [
    "",
    "metric",
    units.paired ? "pairs" : "units A/B",
    "A",
    "B",
    "B − A (95% CI)",
    units.paired ? "p (sign-flip)" : "p (permutation)",
    ...(units.paired ? ["MDE 80%"] : []),
  ];
}

/** Rows of the unit-level table (percentage points). */
export function unitRows(units: UnitComparison): Cell[][] {
  return units.rows.map((r) => [
    r.key,
    r.metric,
    typeof r.n === "number" ? r.n : `${r.n.a}/${r.n.b}`,
    formatPoints(r.a),
    formatPoints(r.b),
    formatDifference({ mean: r.diff, lo: r.lo, hi: r.hi }),
    `${formatP(r.p)}${r.p_method === "monte-carlo" ? " (MC)" : ""}`,
    ...(units.paired ? [r.mde80 === null ? null : formatPoints(r.mde80)] : []),
  ]);
}

/** The sentence that says what the intervals are. */
export function unitNote(units: UnitComparison): string {
  const n = units.resamples.toLocaleString("en-US");
  return units.paired
    ? `Paired differences B − A per ${units.unit}, over ${units.pairs} pairs matched by id` +
      `${
        units.only_a + units.only_b > 0
          ? ` (${units.only_a} only in A, ${units.only_b} only in B, left out)`
          : ""
      }: ` +
      `mean in percentage points with a 95% CI (bootstrap over pairs, ${n} resamples), two-sided sign-flip ` +
      `permutation p, and MDE 80% (2.80 × sd / √pairs).`
    : `UNPAIRED: the runs used different corpora, so the intervals are unpaired (independent bootstrap of each ` +
      `run's ${units.unit} means, ${n} resamples) and p is a two-sample permutation p-value. Percentage points.`;
}

/** compare.html: the run facts, the unit-level table and the aggregate table. */
export function compareHtml(comparison: RunComparison): string {
  const title = `compare ${comparison.suite} runs`;
  const units = comparison.units;
  const body = safeHtml`<h1>${title}</h1>
${
    factList([
      `A: ${comparison.a.path} (created ${comparison.a.created})`,
      `B: ${comparison.b.path} (created ${comparison.b.created})`,
      comparison.same_sources ? "Same source data (corpus)" : "Different source data (corpus)",
      // Plain text (escaped by the list): names shown as they are.
      ...comparisonModelLines(comparison, (name) => name).map((line) => `Models ${line}`),
    ])
  }
${
    units
      ? safeHtml`<h2>${units.paired ? "Paired" : "Unpaired"} differences per ${units.unit}</h2>
${paragraphs(unitNote(units), "note")}${htmlTable(unitHeaders(units), unitRows(units))}`
      : paragraphs(
        "No per-unit results for this suite: only the aggregates are compared (no intervals).",
        "note",
      )
  }
<h2>Aggregates</h2>
${htmlTable(["", "metric", "A", "B", "B − A"], comparisonRows(comparison), { digits: 4 })}`;
  return htmlPage({ title, body });
}
