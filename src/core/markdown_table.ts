/**
 * Plain Markdown and fixed-width text tables for reports and stdout.
 * @module
 */

/** A cell: text, a number (formatted with `digits`), or null (shown as "n/a"). */
export type Cell = string | number | null;

/** Formats a number with fixed digits; null becomes "n/a". */
export function formatCell(value: Cell, digits = 3): string {
  if (value === null) return "n/a";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(digits);
  return value;
}

/** A GitHub-flavoured Markdown table; numeric columns are right-aligned. */
export function markdownTable(headers: string[], rows: Cell[][], digits = 3): string {
  const numeric = headers.map((_, i) =>
    rows.length > 0 && rows.every((r) => typeof r[i] === "number" || r[i] === null)
  );
  const escape = (s: string) => s.replaceAll("|", "\\|");
  const head = `| ${headers.map(escape).join(" | ")} |`;
  const rule = `| ${headers.map((_, i) => (numeric[i] ? "---:" : "---")).join(" | ")} |`;
  const body = rows.map((r) => `| ${r.map((c) => escape(formatCell(c, digits))).join(" | ")} |`);
  return [head, rule, ...body].join("\n");
}

/** A fixed-width text table for terminals. */
export function textTable(headers: string[], rows: Cell[][], digits = 3): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => formatCell(c, digits)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(cells[0]), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join(
    "\n",
  );
}
