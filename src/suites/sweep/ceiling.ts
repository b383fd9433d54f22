/**
 * The report section of a sweep ceiling sweep (`sweep run --input-cap 3000,3800,5000`): per kind and ceiling
 * the table metrics with 95% CIs, the paired difference to Full (unlimited, once) and token means.
 * @module
 */
import { type SweepKindAggregate, type SweepMetric, sweepMetricsIn } from "./aggregate.ts";
import type { Cell } from "../../core/markdown_table.ts";
import { formatDifference, formatInterval, formatP } from "../../analysis/format.ts";
import type { SweepStats } from "./stats.ts";
import { frontierChart, type FrontierPoint } from "../../report/frontier_chart.ts";
import { figure, type Html, safeHtml, sectionHtml, type TableSection } from "../../report/html.ts";

/** One ceiling's sweep results. */
export interface SweepCeilingResult {
  cap: number;
  aggregates: SweepKindAggregate[];
  stats: SweepStats;
}

const round = (v: number | null) => (v === null ? null : Math.round(v));

/** Every kind the ceilings' aggregates name, in their order. */
const kindsOf = (results: readonly SweepCeilingResult[]) => [
  ...new Set(results.flatMap((r) => r.aggregates.map((a) => a.kind))),
];

/** The table section of both reports: Full once, then each other kind at each ceiling (ascending). */
export function sweepCeilingSection(results: readonly SweepCeilingResult[]): TableSection {
  const rows: Cell[][] = [];
  for (const kind of kindsOf(results)) {
    for (const r of kind === "full" ? results.slice(0, 1) : results) {
      const a = r.aggregates.find((x) => x.kind === kind);
      const ci = r.stats.kinds.find((x) => x.kind === kind);
      if (!a || !ci) continue;
      const vsFull = r.stats.paired.find((p) => p.a === "full" && p.b === kind && p.metric === "fact_score");
      rows.push([
        kind,
        kind === "full" ? "none" : r.cap,
        formatInterval(ci.intervals.fact_score),
        formatInterval(ci.intervals.repair_pass),
        vsFull ? formatDifference({ mean: vsFull.mean_diff, lo: vsFull.lo, hi: vsFull.hi }) : "",
        vsFull ? formatP(vsFull.p) : "",
        round(a.input_tokens.mean),
        round(a.context_tokens_mean),
        `${a.valid}/${a.planned}`,
      ]);
    }
  }
  const note =
    `Ceilings ${results.map((r) => r.cap).join(", ")} tokens in one run: summaries and rankings are ` +
    `shared by every ceiling; contexts, answers and scores are per ceiling; Full is limited by no ceiling and ` +
    `answered once. Fact score and repair pass in percent with 95% CIs (bootstrap over generations, each ` +
    `generation's answers averaged first); "fact − Full" is the paired per-generation difference at that ` +
    `ceiling. Input tokens are the provider's reported prompt tokens of the answer calls (an over-budget ` +
    `context is never sent); context tokens are our exact count of every rendered context. In the frontier charts, a kind whose ` +
    `contexts were all over budget at a ceiling has no point there, and ceilings that gave the same context ` +
    `share one point.`;
  const headers = [
    "context",
    "ceiling",
    "fact score (95% CI)",
    "repair pass (95% CI)",
    "fact − Full (95% CI)",
    "p (sign-flip)",
    "input tok mean",
    "context tok mean",
    "valid/planned",
  ];
  return { level: 2, heading: "Ceiling sweep: quality against answer-input size", note, headers, rows };
}

/** One point per distinct place, labelled with every ceiling that gave it (the same context). */
function samePointsLabelled(points: FrontierPoint[]): FrontierPoint[] {
  const byPlace = Map.groupBy(points, (p) => JSON.stringify([p.tokens, p.em, p.lo, p.hi]));
  return [...byPlace.values()].map((same) =>
    same.length === 1 ? same[0] : { ...same[0], label: same.map((p) => p.cap).join(", ") }
  );
}

function frontier(results: readonly SweepCeilingResult[], metric: SweepMetric): Html {
  const label = metric.label;
  const kinds = kindsOf(results).filter((k) => k !== "full");
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
  return safeHtml`${sectionHtml(sweepCeilingSection(results))}
${frontier(results, fact)}
${frontier(results, repair)}`;
}
