/**
 * The cost section of report.html (the same cells as REPORT.md).
 * @module
 */
import type { RunCost } from "../analysis/cost.ts";
import { COST_HEADERS, costNote, costRows } from "../analysis/cost_report.ts";
import { type Html, htmlTable, paragraphs, safeHtml } from "./html.ts";

export function costHtml(cost: RunCost): Html {
  return safeHtml`<h2>Cost</h2>
${paragraphs(costNote(cost), "note")}${htmlTable(COST_HEADERS, costRows(cost))}`;
}
