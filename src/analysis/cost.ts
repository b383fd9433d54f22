/**
 * The cost of a run from its recorded usage and the prices given (never invented); frozen-run nodes left out;
 * and the cost section of the reports (REPORT.md and report.html share the cells).
 * @module
 */
import { z } from "zod";
import type { Node } from "../store/manifest.ts";
import type { Cell } from "../core/markdown_table.ts";

/** USD per million input and output tokens, per model name. */
export type PriceTable = Record<string, { input: number; output: number }>;

const Usd = z.number().finite().nonnegative();

/** The `--prices FILE` format: `{"MODEL": {"input": USD per 1M, "output": USD per 1M}, …}`. */
export const PricesFileSchema = z.record(z.string().min(1), z.object({ input: Usd, output: Usd }).strict());

/** One `--price MODEL=IN/OUT` value. */
export const PriceOptionSchema = z.string().transform((text, ctx) => {
  const m = /^(.+)=([0-9]+(?:\.[0-9]+)?)\/([0-9]+(?:\.[0-9]+)?)$/.exec(text.trim());
  if (!m) {
    ctx.addIssue({
      code: "custom",
      message: `expected MODEL=IN/OUT (USD per million tokens), got ${JSON.stringify(text)}`,
    });
    return z.NEVER;
  }
  return { model: m[1], input: Number(m[2]), output: Number(m[3]) };
});

/** Merges `--price` values over a prices file; null when no price was given at all. */
export function priceTable(
  file: PriceTable | undefined,
  options: readonly { model: string; input: number; output: number }[] | undefined,
): PriceTable | null {
  const table: PriceTable = { ...(file ?? {}) };
  for (const p of options ?? []) table[p.model] = { input: p.input, output: p.output };
  return Object.keys(table).length > 0 ? table : null;
}

interface CostCell {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  usd: number | null;
}

export interface RunCost {
  prices: PriceTable;
  rows: { condition: string; compression: CostCell; answering: CostCell; total_usd: number | null }[];
  total: { compression_usd: number | null; answering_usd: number | null; usd: number | null };
  unpriced: string[];
}

function emptyCell(): CostCell {
  return { calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 };
}

function add(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** The cost table of a run's nodes, conditions in `order` first. */
export async function runCost(
  nodes: Iterable<Node> | AsyncIterable<Node>,
  prices: PriceTable,
  order: readonly string[] = [],
): Promise<RunCost> {
  const cells = new Map<string, { compression: CostCell; answering: CostCell }>();
  const unpriced = new Set<string>();
  for await (const node of nodes) {
    if (node.reused_from !== undefined || node.usage.calls === 0) continue;
    const params = node.params as Record<string, unknown>;
    const named = (keys: string[], fallback: string) =>
      keys.map((key) => params[key]).find((value): value is string => typeof value === "string") ?? fallback;
    const model = named(["chat_model", "decision_model"], "(unnamed model)");
    const phase = node.stage.endsWith("-answer") ? "answering" : "compression";
    const condition = named(["method", "kind"], "shared");
    let entry = cells.get(condition);
    if (!entry) cells.set(condition, entry = { compression: emptyCell(), answering: emptyCell() });
    const cell = entry[phase];
    cell.calls += node.usage.calls;
    cell.input_tokens += node.usage.input_tokens;
    cell.output_tokens += node.usage.output_tokens;
    const price = prices[model];
    if (!price) {
      unpriced.add(model);
      cell.usd = null;
    } else if (cell.usd !== null) {
      cell.usd += (node.usage.input_tokens * price.input + node.usage.output_tokens * price.output) / 1e6;
    }
  }
  const keys = [...cells.keys()].sort((a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib) || a.localeCompare(b);
  });
  const rows = keys.map((condition) => {
    const { compression, answering } = cells.get(condition)!;
    return { condition, compression, answering, total_usd: add(compression.usd, answering.usd) };
  });
  const compressionUsd = rows.reduce<number | null>((s, r) => add(s, r.compression.usd), 0);
  const answeringUsd = rows.reduce<number | null>((s, r) => add(s, r.answering.usd), 0);
  return {
    prices,
    rows,
    total: {
      compression_usd: compressionUsd,
      answering_usd: answeringUsd,
      usd: add(compressionUsd, answeringUsd),
    },
    unpriced: [...unpriced].sort(),
  };
}

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
