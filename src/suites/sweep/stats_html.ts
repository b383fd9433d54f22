/**
 * The uncertainty sections of the sweep report.html (the same cells as REPORT.md).
 *
 * @module
 */
import type { SweepStats } from "./stats.ts";
import {
  SWEEP_INTERVAL_HEADERS,
  SWEEP_PAIRED_HEADERS,
  sweepIntervalRows,
  sweepPairedRows,
  sweepStatsNote,
} from "./stats_report.ts";
import { type Html, htmlTable, paragraphs, safeHtml } from "../../report/html.ts";

/** The `95% CI` and paired-differences tables of the sweep page. */
export function sweepStatsHtml(stats: SweepStats): Html {
  return safeHtml`<h3>95% CI</h3>
${paragraphs(sweepStatsNote(stats), "note")}${htmlTable(SWEEP_INTERVAL_HEADERS, sweepIntervalRows(stats))}
<h3>Paired differences</h3>
${htmlTable(SWEEP_PAIRED_HEADERS, sweepPairedRows(stats))}`;
}
