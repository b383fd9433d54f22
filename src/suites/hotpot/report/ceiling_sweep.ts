/**
 * The report section of a hotpot ceiling sweep (`--input-cap 2400,3600,5400`): EM and F1 with 95% CIs, mean
 * answer-input tokens and the paired difference to Full per method and ceiling (Full, unlimited, once).
 * @module
 */
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import { type Cell, markdownTable } from "../../../core/markdown_table.ts";
import { formatDifference, formatInterval, formatP } from "../../../analysis/format.ts";
import type { HotpotStats } from "./stats.ts";
import { frontierChart } from "../../../report/frontier_chart.ts";
import { figure, type Html, htmlTable, paragraphs, safeHtml } from "../../../report/html.ts";

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
  const methods = [...new Set(results.flatMap((r) => r.aggregates.map((a) => a.method)))];
  for (const method of [...methods.filter((m) => m === "full"), ...methods.filter((m) => m !== "full")]) {
    for (const r of method === "full" ? results.slice(0, 1) : results) {
      const a = r.aggregates.find((x) => x.method === method);
      const ci = r.stats.methods.find((x) => x.method === method);
      if (!a || !ci) continue;
      const vsFull = r.stats.paired.find((p) => p.a === "full" && p.b === method && p.metric === "em");
      rows.push([
        method,
        method === "full" ? "none" : r.cap,
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

const pct = (x: number) => 100 * x;

/** The section: heading, note, table and frontier chart. */
export function ceilingSweepHtml(results: readonly CeilingResult[]): Html {
  const methods = [...new Set(results.flatMap((r) => r.aggregates.map((a) => a.method)))].filter((m) =>
    m !== "full"
  );

  const series = methods.map((method) => ({
    name: method,
    points: results.flatMap((r) => {
      const a = r.aggregates.find((x) => x.method === method);
      const ci = r.stats.methods.find((x) => x.method === method)?.intervals.em;
      return a && ci
        ? [{ cap: r.cap, tokens: a.input_tokens.mean, em: pct(ci.mean), lo: pct(ci.lo), hi: pct(ci.hi) }]
        : [];
    }),
  }));
  const full = results[0]?.aggregates.find((a) => a.method === "full");
  const chart = frontierChart({
    title: "EM against mean answer-input tokens per method, one point per ceiling; Full as reference",
    series,
    ...(full
      ? {
        reference: {
          label: `Full ${pct(full.metrics.em).toFixed(1)}${
            full.input_tokens.mean === null ? "" : ` (${Math.round(full.input_tokens.mean)} tok)`
          }`,
          em: pct(full.metrics.em),
          tokens: full.input_tokens.mean,
        },
      }
      : {}),
  });
  return safeHtml`<h2>Ceiling sweep: quality against answer-input size</h2>
${paragraphs(ceilingNote(results), "note")}${htmlTable(CEILING_HEADERS, ceilingRows(results))}
${figure("The quality/size frontier (error bars: 95% CI)", chart)}`;
}
