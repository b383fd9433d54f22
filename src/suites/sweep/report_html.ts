/**
 * The sweep report.html: REPORT.md's facts and table, a chart of N against the table's metrics (S and Full
 * as reference lines, over-budget counts under the ticks) and one of context tokens against the ceiling.
 * @module
 */
import { mergeAnsweringModels, modelChangeNotice } from "../../core/answering_models.ts";
import { type SweepKindAggregate, sweepMetricsIn } from "./aggregate.ts";
import {
  sweepFacts,
  type SweepReportMeta,
  sweepStatsSections,
  sweepTableHeaders,
  sweepTableRows,
} from "./report.ts";
import { barChart, lineChart, type ReferenceLine } from "../../report/charts.ts";
import { explorerHtml } from "../../report/explorer.ts";
import { costSection } from "../../analysis/cost.ts";
import { sweepCeilingHtml } from "./ceiling.ts";
import {
  banner,
  factList,
  figure,
  HTML,
  type Html,
  htmlPage,
  htmlTable,
  paragraphs,
  safeHtml,
  sectionHtml,
  sectionsHtml,
} from "../../report/html.ts";
import { formatCell } from "../../core/markdown_table.ts";

const pct = (x: number) => Number((100 * x).toFixed(1));

const TOP_N = /^S\+Top([0-9]+)$/;

function overBudgetNote(a: SweepKindAggregate): string | null {
  return a.over_budget > 0 ? `${a.over_budget}/${a.planned} over budget` : null;
}

/** S and Full as reference lines, labelled by each metric's first word (`S fact 40.0`). */
function baselines(aggregates: readonly SweepKindAggregate[]): ReferenceLine[] {
  const lines: ReferenceLine[] = [];
  for (const [kind, name, dash] of [["S", "S", "dashed"], ["full", "Full", "dotted"]] as const) {
    const a = aggregates.find((x) => x.kind === kind);
    if (!a) continue;
    sweepMetricsIn("table").forEach((m, series) => {
      const value = pct(m.aggregate(a) ?? 0);
      lines.push({ label: `${name} ${m.label.split(" ")[0]} ${formatCell(value, 1)}`, value, series, dash });
    });
  }
  return lines;
}

function sweepChart(aggregates: readonly SweepKindAggregate[], meta: SweepReportMeta): Html {
  const ci = (kind: string, metric: string) => {
    const i = meta.stats?.kinds.find((k) => k.kind === kind)?.intervals[metric];
    return i ? { lo: pct(i.lo), hi: pct(i.hi) } : null;
  };
  const topN = aggregates
    .map((a) => ({ a, n: Number(TOP_N.exec(a.kind)?.[1] ?? NaN) }))
    .filter((t) => Number.isInteger(t.n))
    .sort((x, y) => x.n - y.n);
  if (topN.length === 0) return paragraphs("No S+Top N contexts in this run: nothing to chart.", "note");
  const chart = lineChart({
    title: "Fact score and repair pass rate against N, with S and Full as reference lines",
    x: topN.map((t) => t.n),
    xTick: (n) => `S+Top${n}`,
    xLabel: "N: top-ranked original evidence units added to the frozen summary S",
    yLabel: "percent",
    series: sweepMetricsIn("table").map((m) => ({
      name: m.label,
      values: topN.map((t) => pct(m.aggregate(t.a) ?? 0)),
      errors: topN.map((t) => ci(t.a.kind, m.name)),
    })),
    format: (v) => formatCell(v, 1),
    max: 100,
    referenceLines: baselines(aggregates),
    notes: topN.map((t) => overBudgetNote(t.a)),
  });
  return figure("Repair by adding the top N evidence units (S dashed, Full dotted)", chart);
}

function tokensChart(aggregates: readonly SweepKindAggregate[], meta: SweepReportMeta): Html {
  const chart = barChart({
    title: `Mean context tokens per kind, with the ${meta.options.inputCap}-token ceiling`,
    categories: aggregates.map((a) => a.kind),
    series: [{
      name: "context tokens mean",
      values: aggregates.map((a) =>
        a.context_tokens_mean === null ? null : Math.round(a.context_tokens_mean)
      ),
    }],
    format: (v) => formatCell(v, 1),
    yLabel: "context tokens",
    referenceLines: [{ label: `ceiling ${meta.options.inputCap}`, value: meta.options.inputCap, series: 5 }],
    notes: aggregates.map(overBudgetNote),
  });
  return figure("Context size per kind", chart);
}

/** Renders report.html for a sweep run (self-contained, deterministic). */
export function sweepReportHtml(aggregates: SweepKindAggregate[], meta: SweepReportMeta): string {
  const title = "sweep: frozen summary + Jev Top-N";
  const reference = meta.models.mode === "reference"
    ? banner(
      safeHtml`<strong>Reference model.</strong> These numbers come from the built-in deterministic reference model, an honest but weak extractive baseline, not an LLM. They show the harness works end to end; they say nothing about any real LLM.`,
    )
    : "";
  const answering = mergeAnsweringModels(aggregates.map((a) => a.models));
  const changed = modelChangeNotice(answering);
  const notice = changed ? banner(safeHtml`<strong>Answering model changed.</strong> ${changed}`) : "";
  const body = safeHtml`<h1>${title}</h1>
${notice}${reference}
<h2>Run</h2>
${factList(sweepFacts(HTML, meta, answering))}
<h2>Results${meta.options.inputCaps ? ` at the ${meta.options.inputCap}-token ceiling` : ""}</h2>
${
    paragraphs(
      "Fact score: the mean of ten strict fact checks per answer. Repair pass: the share of answers whose repair " +
        "passes all six checks. Answers are averaged within a generation, then generations equally; over-budget " +
        "contexts are recorded, never shrunk, and count zero.",
      "note",
    )
  }${htmlTable(sweepTableHeaders(), sweepTableRows(aggregates), { digits: 1 })}
${meta.stats ? sectionsHtml(sweepStatsSections(meta.stats)) : ""}
${sweepChart(aggregates, meta)}
${tokensChart(aggregates, meta)}
${meta.ceilings ? sweepCeilingHtml(meta.ceilings) : ""}
${meta.cost ? sectionHtml(costSection(meta.cost)) : ""}
${meta.explorer ? explorerHtml(meta.explorer) : ""}`;
  return htmlPage({ title, body });
}
