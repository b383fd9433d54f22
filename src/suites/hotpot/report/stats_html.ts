/**
 * The uncertainty parts of the hotpot report.html; the same cells as REPORT.md.
 * @module
 */
import type { HotpotStats } from "./stats.ts";
import { hypothesisWithInterval } from "./stats_markdown.ts";
import { intervalHeaders, intervalNote, intervalRows, pairedNote, pairedTable } from "./stats_report.ts";
import { type Html, htmlTable, paragraphs, safeHtml } from "../../../report/html.ts";

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
