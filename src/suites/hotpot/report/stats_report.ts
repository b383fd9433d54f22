/**
 * The uncertainty sections of the hotpot REPORT.md and report.html (the same cells) and the hypothesis.
 * @module
 */
import { type Cell, markdownTable } from "../../../core/markdown_table.ts";
import {
  formatDifference,
  formatInterval,
  formatP,
  formatPoints,
  groupedInteger,
} from "../../../analysis/format.ts";
import type { HotpotStats } from "./stats.ts";
import { hotpotMetric, hotpotMetricsIn } from "../run/metrics.ts";
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import { mostlyInvalidNote } from "../../../analysis/mostly_invalid.ts";
import { type Html, htmlTable, paragraphs, safeHtml } from "../../../report/html.ts";

/** Header of the interval table. */
export function intervalHeaders(): string[] {
  return ["method", ...hotpotMetricsIn("intervals").map((m) => `${m.label} (95% CI)`), "questions"];
}

/** Rows of the interval table: `80.0 [63.3, 93.3]` cells. */
export function intervalRows(stats: HotpotStats): Cell[][] {
  return stats.methods.map((m) => [
    m.method,
    ...hotpotMetricsIn("intervals").map((metric) => formatInterval(m.intervals[metric.name])),
    m.intervals.em.n,
  ]);
}

const PAIRED_HEADERS = ["B vs A", "metric", "pairs", "A", "B", "B − A (95% CI)", "p (sign-flip)", "MDE 80%"];

/** Rows of the paired-differences table (without the note column). */
function pairedRows(stats: HotpotStats): Cell[][] {
  return stats.paired.map((p) => [
    `${p.b} vs ${p.a}`,
    hotpotMetric(p.metric)?.label ?? p.metric,
    p.n,
    formatPoints(p.mean_a),
    formatPoints(p.mean_b),
    formatDifference({ mean: p.mean_diff, lo: p.lo, hi: p.hi }),
    `${formatP(p.p)}${p.p_method === "exact" ? "" : " (MC)"}`,
    p.mde80 === null ? null : formatPoints(p.mde80),
  ]);
}

/** Each method's share of planned conditions that were not valid, from its aggregate. */
export function invalidShares(
  aggregates: readonly Pick<HotpotMethodAggregate, "method" | "valid" | "planned">[],
): Map<string, number> {
  return new Map(aggregates.map((a) => [a.method, a.planned > 0 ? 1 - a.valid / a.planned : 0]));
}

/** The paired-differences table; a side mostly invalid marks it "not a finding" (a note column, if any). */
export function pairedTable(
  stats: HotpotStats,
  invalid: ReadonlyMap<string, number>,
): { headers: string[]; rows: Cell[][] } {
  const notes = stats.paired.map((p) =>
    mostlyInvalidNote((m) => invalid.get(m) ?? 0, p.a, p.b, "conditions")
  );
  const rows = pairedRows(stats);
  if (notes.every((note) => note === "")) return { headers: PAIRED_HEADERS, rows };
  return { headers: [...PAIRED_HEADERS, "note"], rows: rows.map((row, i) => [...row, notes[i]]) };
}

/** How the intervals are computed (one paragraph). */
export function intervalNote(stats: HotpotStats): string {
  return `95% CI: percentile bootstrap over the ${stats.questions} questions (the unit: each question's ` +
    `answers over generations × answers are averaged first, invalid conditions count zero), ` +
    `${groupedInteger(stats.resamples)} resamples, seed \`${stats.seed}\`. Percentages.`;
}

/** How the paired differences are computed (one paragraph). */
export function pairedNote(stats: HotpotStats): string {
  return `Paired per-question differences B − A in percentage points over the same questions: the mean with a ` +
    `95% bootstrap CI (${groupedInteger(stats.resamples)} resamples), a two-sided paired sign-flip ` +
    `permutation p-value (exact over all sign vectors when at most ${stats.exact_limit} questions differ, ` +
    `otherwise seeded Monte Carlo, marked MC), and MDE 80%: the smallest mean difference this run could ` +
    `detect at 80% power, two-sided α = 0.05, from the per-question variance of the differences ` +
    `(normal approximation: 2.80 × sd / √pairs). No correction for multiple comparisons; descriptive.`;
}

/** The sentence about (Jev+Summary − Full) EM against the 5-point margin, or null when not computed. */
export function hypothesisInterval(stats: HotpotStats): string | null {
  const p = stats.paired.find((r) => r.a === "full" && r.b === "jev+summary" && r.metric === "em");
  if (!p) return null;
  const margin = -0.05;
  const where = p.lo >= margin
    ? "lies entirely above −5 points: consistent with being within 5 points of Full"
    : p.hi < margin
    ? "lies entirely below −5 points: more than 5 points below Full"
    : "includes −5 points: this run cannot tell whether Jev+Summary is within 5 points of Full";
  return `Jev+Summary − Full EM: ${formatDifference({ mean: p.mean_diff, lo: p.lo, hi: p.hi })} points ` +
    `(95% CI, ${p.n} paired questions, sign-flip p = ${formatP(p.p)}); the interval ${where}. ` +
    `This is descriptive, not a pre-registered non-inferiority test.`;
}

/** The `95% CI` table and paired differences; `invalid`: each method's share of invalid conditions. */
export function hotpotStatsMarkdown(stats: HotpotStats, invalid: ReadonlyMap<string, number>): string {
  const paired = pairedTable(stats, invalid);
  return `
### 95% CI

${intervalNote(stats)}

${markdownTable(intervalHeaders(), intervalRows(stats))}

### Paired differences

${pairedNote(stats)}

${markdownTable(paired.headers, paired.rows)}
`;
}

/** The descriptive hypothesis text, followed by the interval sentence when intervals were computed. */
export function hypothesisWithInterval(text: string, stats: HotpotStats | undefined): string {
  const extra = stats ? hypothesisInterval(stats) : null;
  if (!extra) return text;
  // The verdict compares point estimates; with intervals the report adds their reading, still descriptive.
  const verdict = text.replace(
    "(descriptive only: no significance test)",
    "(descriptive: the verdict compares point estimates)",
  );
  return `${verdict}\n\n${extra}`;
}

/** The `95% CI` table and the paired-differences section; `invalid` as for {@link pairedTable}. */
export function hotpotStatsHtml(stats: HotpotStats, invalid: ReadonlyMap<string, number>): Html {
  const paired = pairedTable(stats, invalid);
  return safeHtml`<h3>95% CI</h3>
${paragraphs(intervalNote(stats).replaceAll("`", ""), "note")}${
    htmlTable(intervalHeaders(), intervalRows(stats))
  }
<h3>Paired differences</h3>
${paragraphs(pairedNote(stats), "note")}${htmlTable(paired.headers, paired.rows)}`;
}

/** The hypothesis paragraphs with the interval sentence when intervals were computed. */
export function hypothesisHtml(text: string, stats: HotpotStats | undefined): Html {
  return paragraphs(hypothesisWithInterval(text, stats));
}
