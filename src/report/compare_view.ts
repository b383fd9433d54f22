/**
 * How `compare` shows its unit-level differences: a text table, and compare.html (one self-contained page).
 * @module
 */
import { formatDifference, formatP, formatPoints, groupedInteger } from "../analysis/format.ts";
import type { RunComparison } from "./compare.ts";
import { comparisonModelLines, comparisonRows, withoutNegativeZero } from "./compare.ts";
import type { UnitComparison } from "./compare_units.ts";
import { banner, factList, type Html, htmlPage, htmlTable, paragraphs, safeHtml } from "./html.ts";
import { barChart } from "./charts.ts";
import type { Cell } from "../core/markdown_table.ts";

/** Whether a unit row is marked "not a finding" (the table then has a note column). */
function hasNotes(units: UnitComparison): boolean {
  return units.rows.some((r) => r.note !== null);
}

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
    ...(hasNotes(units) ? ["note"] : []),
  ];
}

export function unitRows(units: UnitComparison): Cell[][] {
  return units.rows.map((r) => [
    r.key,
    r.metric,
    typeof r.n === "number" ? r.n : `${r.n.a}/${r.n.b}`,
    withoutNegativeZero(formatPoints(r.a)),
    withoutNegativeZero(formatPoints(r.b)),
    withoutNegativeZero(formatDifference({ mean: r.diff, lo: r.lo, hi: r.hi })),
    `${formatP(r.p)}${r.p_method === "monte-carlo" ? " (MC)" : ""}`,
    ...(units.paired ? [r.mde80 === null ? null : withoutNegativeZero(formatPoints(r.mde80))] : []),
    ...(hasNotes(units) ? [r.note ?? ""] : []),
  ]);
}

/** Whether either run was answered by the built-in reference model. */
export function usesReferenceModel(comparison: RunComparison): boolean {
  const mode = (models: unknown) => (models as { mode?: unknown } | null)?.mode;
  return mode(comparison.a.models) === "reference" || mode(comparison.b.models) === "reference";
}

export const COMPARE_REFERENCE_NOTICE = "Reference model. At least one of these runs was answered by the " +
  "built-in deterministic reference model, an honest but weak extractive baseline, not an LLM: its " +
  "differences show the harness works end to end and say nothing about any real LLM.";

/** A chart of the differences B − A of the first metric per condition with 95% CIs; null without unit rows. */
function differenceChart(units: UnitComparison): Html | null {
  const metric = units.rows[0]?.metric;
  if (metric === undefined) return null;
  const rows = units.rows.filter((r) => r.metric === metric);
  return barChart({
    title: `B − A, ${metric} (percentage points, 95% CI)`,
    categories: rows.map((r) => r.key),
    series: [{
      name: `B − A ${metric}`,
      values: rows.map((r) => 100 * r.diff),
      errors: rows.map((r) => ({ lo: 100 * r.lo, hi: 100 * r.hi })),
    }],
    format: (v) => withoutNegativeZero(`${v > 0 ? "+" : ""}${v.toFixed(1)}`),
    yLabel: `B − A, ${metric} (points)`,
    referenceLines: [{ label: "no difference", value: 0 }],
    notes: rows.map((r) => r.note === null ? null : "not a finding"),
  });
}

export function unitNote(units: UnitComparison): string {
  const n = groupedInteger(units.resamples);
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

/** compare.html: the run facts, the unit-level table and the aggregate table (`shares` in points). */
export function compareHtml(comparison: RunComparison, shares: ReadonlySet<string>): string {
  const title = `compare ${comparison.suite} runs`;
  const units = comparison.units;
  const chart = units ? differenceChart(units) : null;
  const body = safeHtml`<h1>${title}</h1>
${usesReferenceModel(comparison) ? banner(COMPARE_REFERENCE_NOTICE) : ""}
${
    factList([
      `A: ${comparison.a.path} (created ${comparison.a.created})`,
      `B: ${comparison.b.path} (created ${comparison.b.created})`,
      comparison.same_sources ? "Same source data (corpus)" : "Different source data (corpus)",
      ...comparisonModelLines(comparison, (name) => name).map((line) => `Models ${line}`),
    ])
  }
${
    units
      ? safeHtml`<h2>${units.paired ? "Paired" : "Unpaired"} differences per ${units.unit}</h2>
${paragraphs(unitNote(units), "note")}${chart ?? ""}${htmlTable(unitHeaders(units), unitRows(units))}`
      : paragraphs(
        "No per-unit results for this suite: only the aggregates are compared (no intervals).",
        "note",
      )
  }
<h2>Aggregates</h2>
${
    paragraphs(
      `Shares (${[...shares].join(", ")}) in percentage points; counts and means as they are.`,
      "note",
    )
  }${htmlTable(["", "metric", "A", "B", "B − A"], comparisonRows(comparison, shares))}`;
  return htmlPage({ title, body });
}
