/**
 * The uncertainty sections of the sweep REPORT.md and report.html (same cells in both).
 * @module
 */
import { type Cell, markdownTable } from "../../core/markdown_table.ts";
import { formatDifference, formatInterval, formatP, formatPoints } from "../../analysis/format.ts";
import type { SweepStats } from "./stats.ts";
import { SWEEP_METRICS, sweepMetricsIn } from "./metrics.ts";
import { mostlyInvalidNote as mostlyInvalid } from "../../analysis/mostly_invalid.ts";
import { type Html, htmlTable, paragraphs, safeHtml } from "../../report/html.ts";

/** Header of the sweep interval table. */
export const SWEEP_INTERVAL_HEADERS = [
  "context",
  ...sweepMetricsIn("intervals").map((m) => `${m.label} (95% CI)`),
  "generations",
];

/** Rows of the sweep interval table. */
export function sweepIntervalRows(stats: SweepStats): Cell[][] {
  return stats.kinds.map((k) => [
    k.kind,
    ...sweepMetricsIn("intervals").map((m) => formatInterval(k.intervals[m.name])),
    k.intervals.fact_score.n,
  ]);
}

/** Header of the sweep paired table. */
export const SWEEP_PAIRED_HEADERS = [
  "B vs A",
  "metric",
  "pairs",
  "A",
  "B",
  "B − A (95% CI)",
  "p (sign-flip)",
  "note",
];

/** "not a finding" when A's or B's answers were mostly invalid (counting zero); else empty. */
export function mostlyInvalidNote(stats: SweepStats, a: string, b: string): string {
  const share = (kind: string) => stats.kinds.find((k) => k.kind === kind)?.invalid ?? 0;
  return mostlyInvalid(share, a, b, "answers");
}

/** Rows of the sweep paired table. */
export function sweepPairedRows(stats: SweepStats): Cell[][] {
  return stats.paired.map((p) => [
    `${p.b} vs ${p.a}`,
    SWEEP_METRICS.find((m) => m.name === p.metric)?.label ?? p.metric,
    p.n,
    formatPoints(p.mean_a),
    formatPoints(p.mean_b),
    formatDifference({ mean: p.mean_diff, lo: p.lo, hi: p.hi }),
    formatP(p.p),
    mostlyInvalidNote(stats, p.a, p.b),
  ]);
}

/** How the sweep intervals are computed. */
export function sweepStatsNote(stats: SweepStats): string {
  return `95% CI: percentile bootstrap over the ${stats.generations} generation(s) (the unit: each generation's ` +
    `answers are averaged first, so answers of one generation, which share its compressed context, are not ` +
    `treated as independent), ${
      stats.resamples.toLocaleString("en-US")
    } resamples, seed ${stats.seed}. With ` +
    `few generations the intervals are coarse; they are zero-width when every generation gives the same ` +
    `number. Paired differences compare contexts on the same generations (B − A, percentage points, ` +
    `two-sided sign-flip p). Descriptive. A comparison in which A or B had more than half of its answers ` +
    `invalid (e.g. every context over the ceiling) is marked "not a finding": invalid answers count zero.`;
}

/** The Markdown section. */
export function sweepStatsMarkdown(stats: SweepStats): string {
  return `
### 95% CI

${sweepStatsNote(stats)}

${markdownTable(SWEEP_INTERVAL_HEADERS, sweepIntervalRows(stats))}

### Paired differences

${markdownTable(SWEEP_PAIRED_HEADERS, sweepPairedRows(stats))}
`;
}

/** The `95% CI` and paired-differences tables of the sweep page. */
export function sweepStatsHtml(stats: SweepStats): Html {
  return safeHtml`<h3>95% CI</h3>
${paragraphs(sweepStatsNote(stats), "note")}${htmlTable(SWEEP_INTERVAL_HEADERS, sweepIntervalRows(stats))}
<h3>Paired differences</h3>
${htmlTable(SWEEP_PAIRED_HEADERS, sweepPairedRows(stats))}`;
}
