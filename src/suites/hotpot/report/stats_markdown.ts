/**
 * The uncertainty sections of the hotpot REPORT.md and the hypothesis with its interval.
 * @module
 */
import { markdownTable } from "../../../core/markdown_table.ts";
import type { HotpotStats } from "./stats.ts";
import {
  hypothesisInterval,
  intervalHeaders,
  intervalNote,
  intervalRows,
  pairedNote,
  pairedTable,
} from "./stats_report.ts";

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
