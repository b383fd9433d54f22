/**
 * The ceiling-sweep section of the hotpot report.html: REPORT.md's table and the EM/input-tokens frontier.
 * @module
 */
import { CEILING_HEADERS, ceilingNote, type CeilingResult, ceilingRows } from "./ceiling_sweep.ts";
import { frontierChart } from "../../../report/frontier_chart.ts";
import { figure, type Html, htmlTable, paragraphs, safeHtml } from "../../../report/html.ts";

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
