/**
 * A sweep ceiling sweep (`sweep run --input-cap 3000,3800,5000`): every context kind at each ceiling in one
 * run (summaries and rankings shared; Full, which no ceiling limits, once). The rows, and the report section:
 * fact score and repair pass with 95% CIs (over generations) and mean context tokens per kind and ceiling.
 *
 * @module
 */
import type { SweepKindAggregate } from "./aggregate.ts";
import type { SweepResultRow } from "./run_suite.ts";
import { type Cell, markdownTable } from "../../core/markdown_table.ts";
import { formatInterval } from "../../analysis/format.ts";
import type { SweepStats } from "./stats.ts";

/** One ceiling's sweep results. */
export interface SweepCeilingResult {
  cap: number;
  aggregates: SweepKindAggregate[];
  stats: SweepStats;
}

/** results.json of a sweep over ceilings: Full's rows once (`input_cap` null), other kinds per ceiling. */
export function ceilingSweepRows(
  perCap: readonly { cap: number; outcome: { rows: SweepResultRow[] } }[],
): (SweepResultRow & { input_cap: number | null })[] {
  return [
    ...(perCap[0]?.outcome.rows ?? []).filter((r) => r.kind === "full").map((r) => ({
      ...r,
      input_cap: null,
    })),
    ...perCap.flatMap((p) =>
      p.outcome.rows.filter((r) => r.kind !== "full").map((r) => ({ ...r, input_cap: p.cap }))
    ),
  ];
}

/** Headers of the sweep ceiling table. */
export const SWEEP_CEILING_HEADERS = [
  "context",
  "ceiling",
  "fact score (95% CI)",
  "repair pass (95% CI)",
  "context tokens mean",
  "valid/planned",
];

/** Rows: Full once, then each kind at each ceiling. */
export function sweepCeilingRows(results: readonly SweepCeilingResult[]): Cell[][] {
  const kinds = [...new Set(results.flatMap((r) => r.aggregates.map((a) => a.kind)))];
  const rows: Cell[][] = [];
  for (const kind of kinds) {
    for (const r of kind === "full" ? results.slice(0, 1) : results) {
      const a = r.aggregates.find((x) => x.kind === kind);
      const ci = r.stats.kinds.find((x) => x.kind === kind);
      if (!a || !ci) continue;
      rows.push([
        kind,
        kind === "full" ? "none" : r.cap,
        formatInterval(ci.intervals.fact_score),
        formatInterval(ci.intervals.repair_pass),
        a.context_tokens_mean === null ? null : Math.round(a.context_tokens_mean),
        `${a.valid}/${a.planned}`,
      ]);
    }
  }
  return rows;
}

/** What the table shows. */
export function sweepCeilingNote(results: readonly SweepCeilingResult[]): string {
  return `Ceilings ${results.map((r) => r.cap).join(", ")} tokens in one run: summaries and rankings are ` +
    `shared by every ceiling, contexts and answers are per ceiling, Full is answered once. 95% CIs over ` +
    `generations (each generation's answers averaged first).`;
}

/** The Markdown section. */
export function sweepCeilingMarkdown(results: readonly SweepCeilingResult[]): string {
  return `
## Ceiling sweep

${sweepCeilingNote(results)}

${markdownTable(SWEEP_CEILING_HEADERS, sweepCeilingRows(results))}
`;
}
