/**
 * The ceiling-sweep section of the sweep report.html: the table of REPORT.md and the frontier of fact score
 * (95% CI) against mean context tokens per context kind, one point per ceiling, Full as reference line.
 *
 * @module
 */
import {
  SWEEP_CEILING_HEADERS,
  sweepCeilingNote,
  type SweepCeilingResult,
  sweepCeilingRows,
} from "./ceiling.ts";
import { frontierChart } from "../../report/frontier_chart.ts";
import { figure, type Html, htmlTable, paragraphs, safeHtml } from "../../report/html.ts";

/** The section: heading, note, table and frontier chart. */
export function sweepCeilingHtml(results: readonly SweepCeilingResult[]): Html {
  const kinds = [...new Set(results.flatMap((r) => r.aggregates.map((a) => a.kind)))].filter((k) =>
    k !== "full"
  );
  const series = kinds.map((kind) => ({
    name: kind,
    points: results.flatMap((r) => {
      const a = r.aggregates.find((x) => x.kind === kind);
      const ci = r.stats.kinds.find((x) => x.kind === kind)?.intervals.fact_score;
      return a && ci
        ? [{ cap: r.cap, tokens: a.context_tokens_mean, em: 100 * ci.mean, lo: 100 * ci.lo, hi: 100 * ci.hi }]
        : [];
    }),
  }));
  const full = results[0]?.aggregates.find((a) => a.kind === "full");
  const chart = frontierChart({
    title:
      "Fact score against mean context tokens per context kind, one point per ceiling; Full as reference",
    yLabel: "fact score (%), bars: 95% CI",
    xLabel: "mean context tokens (point labels: ceiling)",
    series,
    ...(full
      ? {
        reference: {
          label: `Full ${(100 * full.fact_score).toFixed(1)}`,
          em: 100 * full.fact_score,
          tokens: null,
        },
      }
      : {}),
  });
  return safeHtml`<h2>Ceiling sweep</h2>
${paragraphs(sweepCeilingNote(results), "note")}${htmlTable(SWEEP_CEILING_HEADERS, sweepCeilingRows(results))}
${figure("Fact score against context size (error bars: 95% CI)", chart)}`;
}
