/**
 * The cost section of the reports (REPORT.md and report.html share the cells).
 * @module
 */
import type { Cell } from "../core/markdown_table.ts";
import type { RunCost } from "./cost.ts";

const usd = (x: number | null) => (x === null ? "no price" : `$${x.toFixed(x >= 1 ? 2 : 4)}`);

export const COST_HEADERS = [
  "condition",
  "compression calls",
  "compression USD",
  "answer calls",
  "answering USD",
  "total USD",
];

/** Rows of the cost table, with a total row. */
export function costRows(cost: RunCost): Cell[][] {
  return [
    ...cost.rows.map((r) => [
      r.condition,
      r.compression.calls,
      usd(r.compression.usd),
      r.answering.calls,
      usd(r.answering.usd),
      usd(r.total_usd),
    ]),
    [
      "total",
      null,
      usd(cost.total.compression_usd),
      null,
      usd(cost.total.answering_usd),
      usd(cost.total.usd),
    ],
  ];
}

/** What the numbers are made of. */
export function costNote(cost: RunCost): string {
  const prices = Object.entries(cost.prices)
    .map(([m, p]) => `${m} $${p.input}/$${p.output}`)
    .join(", ");
  const missing = cost.unpriced.length > 0
    ? ` No price was given for ${cost.unpriced.join(", ")}: cells that include their usage say "no price".`
    : "";
  return `From the usage this run recorded (nodes reused from a frozen run were paid for there and are left ` +
    `out) and the prices given (USD per million input/output tokens: ${prices}). "shared" is compression ` +
    `used by several conditions (a ranking, the sweep's summary and ranking), counted once.${missing}`;
}

/** The cost section (a `TableSection` of src/report/html.ts: REPORT.md and report.html render it). */
export function costSection(cost: RunCost) {
  return {
    level: 2 as const,
    heading: "Cost",
    note: costNote(cost),
    headers: COST_HEADERS,
    rows: costRows(cost),
  };
}
