/**
 * A hotpot ceiling sweep (`--input-cap 2400,3600,5400`): every compressed method at each ceiling in one run
 * (rankings shared across ceilings, summaries and contexts per ceiling; Full, which no ceiling limits, once).
 * This module turns the per-ceiling aggregates and intervals into the report's sweep section: a table of EM
 * and F1 with 95% CIs and mean answer-input tokens per method and ceiling, the paired difference to Full at
 * each ceiling, and the quality/size frontier chart (EM against mean answer-input tokens, Full as the
 * reference line).
 *
 * @module
 */
import { z } from "zod";
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import { type Cell, markdownTable } from "../../../core/markdown_table.ts";
import { formatDifference, formatInterval, formatP } from "../../../analysis/format.ts";
import type { HotpotStats } from "./stats.ts";

/** One ceiling's results (Full included in each, from the same answers). */
export interface CeilingResult {
  cap: number;
  aggregates: HotpotMethodAggregate[];
  stats: HotpotStats;
}

/** Headers of the sweep table. */
export const CEILING_HEADERS = [
  "method",
  "ceiling",
  "EM (95% CI)",
  "F1 (95% CI)",
  "input tok mean",
  "valid/planned",
  "EM − Full (95% CI)",
  "p (sign-flip)",
];

/** Rows of the sweep table: Full once, then each compressed method at each ceiling. */
export function ceilingRows(results: readonly CeilingResult[]): Cell[][] {
  const rows: Cell[][] = [];
  const first = results[0];
  const full = first?.aggregates.find((a) => a.method === "full");
  const fullCi = first?.stats.methods.find((m) => m.method === "full");
  if (full && fullCi) {
    rows.push([
      "full",
      "none",
      formatInterval(fullCi.intervals.em),
      formatInterval(fullCi.intervals.f1),
      full.input_tokens.mean === null ? null : Math.round(full.input_tokens.mean),
      `${full.valid}/${full.planned}`,
      "",
      "",
    ]);
  }
  const methods = [...new Set(results.flatMap((r) => r.aggregates.map((a) => a.method)))].filter((m) =>
    m !== "full"
  );
  for (const method of methods) {
    for (const r of results) {
      const a = r.aggregates.find((x) => x.method === method);
      const ci = r.stats.methods.find((x) => x.method === method);
      if (!a || !ci) continue;
      const vsFull = r.stats.paired.find((p) => p.a === "full" && p.b === method && p.metric === "em");
      rows.push([
        method,
        r.cap,
        formatInterval(ci.intervals.em),
        formatInterval(ci.intervals.f1),
        a.input_tokens.mean === null ? null : Math.round(a.input_tokens.mean),
        `${a.valid}/${a.planned}`,
        vsFull ? formatDifference({ mean: vsFull.mean_diff, lo: vsFull.lo, hi: vsFull.hi }) : "",
        vsFull ? formatP(vsFull.p) : "",
      ]);
    }
  }
  return rows;
}

/** What the sweep table shows. */
export function ceilingNote(results: readonly CeilingResult[]): string {
  return `Ceilings ${
    results.map((r) => r.cap).join(", ")
  } tokens, in one run: rankings are shared by every ` +
    `ceiling; summaries, contexts and answers are per ceiling; Full is limited by no ceiling and answered once. ` +
    `EM and F1 in percent with 95% CIs (bootstrap over questions); "EM − Full" is the paired per-question ` +
    `difference at that ceiling. Input tokens are the provider's reported prompt tokens of the answer calls.`;
}

/** The Markdown section of a ceiling sweep. */
export function ceilingSweepMarkdown(results: readonly CeilingResult[]): string {
  return `
## Ceiling sweep: quality against answer-input size

${ceilingNote(results)}

${markdownTable(CEILING_HEADERS, ceilingRows(results))}
`;
}

/** `--input-cap N[,N…]`: distinct whole numbers in 256–10,000,000, ascending. */
export const capListOption = z.string().transform((text, ctx) => {
  const parts = text.split(",").map((p) => p.trim());
  const bad = parts.find((p) => !/^[0-9]+$/.test(p) || Number(p) < 256 || Number(p) > 10_000_000);
  if (bad !== undefined) {
    ctx.addIssue({
      code: "custom",
      message: `${JSON.stringify(bad)} is not a ceiling (a whole number 256–10000000)`,
    });
    return z.NEVER;
  }
  const caps = [...new Set(parts.map(Number))].sort((a, b) => a - b);
  if (caps.length !== parts.length) {
    ctx.addIssue({ code: "custom", message: "a ceiling is given twice" });
    return z.NEVER;
  }
  return caps;
});

/** aggregate.json of a sweep: each method at each ceiling (`input_cap`), Full once (`input_cap` null). */
export function ceilingAggregates(results: readonly CeilingResult[]): (HotpotMethodAggregate & {
  input_cap: number | null;
})[] {
  return results.flatMap((r, i) =>
    r.aggregates
      .filter((a) => a.method !== "full" || i === 0)
      .map((a) => ({ ...a, input_cap: a.method === "full" ? null : r.cap }))
  );
}
