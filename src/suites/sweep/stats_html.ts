/**
 * The uncertainty sections of the sweep report.html (the same cells as REPORT.md).
 * @module
 */
import type { SweepStats } from "./stats.ts";
import * as report from "./stats_report.ts";
import { type Html, htmlTable, paragraphs, safeHtml } from "../../report/html.ts";

/** The `95% CI` and paired-differences tables of the sweep page. */
export function sweepStatsHtml(stats: SweepStats): Html {
  return safeHtml`<h3>95% CI</h3>
${paragraphs(report.sweepStatsNote(stats), "note")}${
    htmlTable(report.SWEEP_INTERVAL_HEADERS, report.sweepIntervalRows(stats))
  }
<h3>Paired differences</h3>
${htmlTable(report.SWEEP_PAIRED_HEADERS, report.sweepPairedRows(stats))}`;
}
