/**
 * The ceiling-sweep section of the sweep report.html: REPORT.md's table and, per table metric, the frontier
 * against mean answer-input tokens per context kind (one point per ceiling, Full as reference).
 * @module
 */
import {
  SWEEP_CEILING_HEADERS,
  sweepCeilingNote,
  type SweepCeilingResult,
  sweepCeilingRows,
} from "./ceiling.ts";
import { frontierChart, type FrontierPoint } from "../../report/frontier_chart.ts";
import { figure, type Html, htmlTable, paragraphs, safeHtml } from "../../report/html.ts";
import { type SweepMetric, sweepMetricsIn } from "./metrics.ts";

/** One point per distinct place, labelled with every ceiling that gave it (the same context). */
function samePointsLabelled(points: FrontierPoint[]): FrontierPoint[] {
  const byPlace = new Map<string, FrontierPoint[]>();
  for (const p of points) {
    const place = JSON.stringify([p.tokens, p.em, p.lo, p.hi]);
    byPlace.set(place, [...(byPlace.get(place) ?? []), p]);
  }
  return [...byPlace.values()].map((same) =>
    same.length === 1 ? same[0] : { ...same[0], label: same.map((p) => p.cap).join(", ") }
  );
}

function frontier(results: readonly SweepCeilingResult[], metric: SweepMetric): Html {
  const label = metric.label;
  const kinds = [...new Set(results.flatMap((r) => r.aggregates.map((a) => a.kind)))].filter((k) =>
    k !== "full"
  );
  const series = kinds.map((kind) => ({
    name: kind,
    points: samePointsLabelled(results.flatMap((r) => {
      const a = r.aggregates.find((x) => x.kind === kind);
      const ci = r.stats.kinds.find((x) => x.kind === kind)?.intervals[metric.name];
      return a && ci
        ? [{ cap: r.cap, tokens: a.input_tokens.mean, em: 100 * ci.mean, lo: 100 * ci.lo, hi: 100 * ci.hi }]
        : [];
    })),
  }));
  const full = results[0]?.aggregates.find((a) => a.kind === "full");
  const fullValue = full ? 100 * (metric.aggregate(full) ?? 0) : null;
  const chart = frontierChart({
    title:
      `${label} against mean answer-input tokens per context kind, one point per ceiling; Full as reference`,
    yLabel: `${label} (%), bars: 95% CI`,
    series,
    ...(full && fullValue !== null
      ? {
        reference: {
          label: `Full ${fullValue.toFixed(1)}${
            full.input_tokens.mean === null ? "" : ` (${Math.round(full.input_tokens.mean)} tok)`
          }`,
          em: fullValue,
          tokens: full.input_tokens.mean,
        },
      }
      : {}),
  });
  return figure(`The quality/size frontier: ${label} (error bars: 95% CI)`, chart);
}

/** The section: heading, note, table and the two frontier charts. */
export function sweepCeilingHtml(results: readonly SweepCeilingResult[]): Html {
  const [fact, repair] = sweepMetricsIn("table");
  return safeHtml`<h2>Ceiling sweep: quality against answer-input size</h2>
${paragraphs(sweepCeilingNote(results), "note")}${htmlTable(SWEEP_CEILING_HEADERS, sweepCeilingRows(results))}
${frontier(results, fact)}
${frontier(results, repair)}`;
}
