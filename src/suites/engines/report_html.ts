/**
 * The engines report.html: REPORT.md's tables and notes, plus charts of savings, recall and latency with the
 * 95% intervals as error bars, recall curves against retained tokens with several budgets, and the explorer.
 * @module
 */
import { modelChangeNotice } from "../../core/answering_models.ts";
import type { Cell } from "../../core/markdown_table.ts";
import {
  budgetCurveRows,
  budgetsOf,
  ENGINE_HTML_TABLE_HEADER,
  ENGINE_NOTES_HEADING,
  engineHtmlTableRows,
  engineLabel,
  engineNotes,
  ENGINES_PARITY_HEADING,
  ENGINES_PARITY_NOTE,
  ENGINES_REPORT_TITLE,
  ENGINES_TABLE_NOTE,
  enginesFacts,
  type EnginesReportMeta,
  ms,
  probeTypeRows,
  problemLists,
  RECOVERY_NOTE,
  recoveryRows,
  statsOf,
} from "./report.ts";
import {
  type EngineIntervals,
  enginesCiHeaders,
  enginesIntervalRows,
  type EnginesStats,
  enginesStatsNote,
} from "./stats.ts";
import type { Interval } from "../../analysis/bootstrap.ts";
import { LOCOMO_NOTE, locomoTables } from "./locomo_report.ts";
import { explorerHtml } from "../../report/explorer.ts";
import type { EngineResult } from "./run.ts";
import { barChart, type BarChartOptions, type ChartSeries } from "../../report/charts.ts";
import { curveChart, type CurveSeries } from "./curve.ts";
import {
  banner,
  code,
  factList,
  figure,
  HTML,
  type Html,
  htmlPage,
  htmlTable,
  paragraphs,
  rawHtml,
  safeHtml,
} from "../../report/html.ts";

/** A table whose first `left` columns are left-aligned, the others right-aligned. */
function table(header: readonly string[], rows: readonly Cell[][], left: number): Html {
  return htmlTable(header, rows, { align: header.map((_, i) => i < left ? "left" : "right") });
}

/** The LoCoMo QA tables (per row, pooled over conversations), or nothing when no row was scored by its F1. */
function locomoHtml(stats: EnginesStats): Html | string {
  if (!stats.locomo) return "";
  const t = locomoTables(stats.locomo);
  return safeHtml`<h3>LoCoMo QA (answer F1)</h3>
${paragraphs(plainNote(LOCOMO_NOTE), "note")}
${table(t.header, t.rows, 2)}
<p>Pooled over conversations:</p>
${table(t.pooledHeader, t.pooled, 2)}
`;
}

/** Error bars of one interval per result, times `scale` (none where there is no interval). */
function errorBars(
  stats: EnginesStats,
  pick: (e: EngineIntervals) => Interval | null,
  scale = 100,
): ({ lo: number; hi: number } | null)[] {
  return stats.engines.map((e) => {
    const i = pick(e);
    return i !== null && Number.isFinite(i.lo) ? { lo: scale * i.lo, hi: scale * i.hi } : null;
  });
}

/** The engine's own compress times where known, else (one-shot, older rows) the round trip. */
function own(r: EngineResult): { cold: number | null; warm_mean: number | null; warm_median: number | null } {
  return r.compress_ms && r.timing !== "one-shot" ? r.compress_ms : r.latency_ms;
}

/** The savings, recall and latency bar charts, one bar group per row (failed and skipped rows marked). */
function barCharts(results: readonly EngineResult[], stats: EnginesStats, multi: boolean): Html {
  const chart = (caption: string, options: Omit<BarChartOptions, "categories" | "notes">) =>
    figure(
      caption,
      barChart({
        categories: results.map((r) => multi ? `${engineLabel(r)} @ ${r.budget}` : engineLabel(r)),
        notes: results.map((r) => r.status === "ok" ? null : r.status),
        ...options,
      }),
    );
  const probes = results.some((r) => r.probes !== null);
  const recall = (name: string, pick: Recall["pick"], interval: Recall["interval"]): ChartSeries => ({
    name,
    // A result's value as a percentage; null (n/a) when it has none or failed.
    values: results.map((r) => {
      const v = r.status === "ok" ? pick(r) : null;
      return v === null ? null : Number((100 * v).toFixed(1));
    }),
    errors: errorBars(stats, interval),
  });
  const percent = { format: (v: number) => `${v.toFixed(1)}%`, max: 100 };
  const figures = [
    chart("Savings", {
      title: "Token savings per engine (%)",
      series: [{
        name: "saved",
        values: results.map((r) => r.savings_pct === null ? null : Number(r.savings_pct.toFixed(1))),
      }],
      yLabel: "saved %",
      ...percent,
    }),
    chart("What survives in the window", {
      title: `Needle recall, QA recall${
        probes ? " and probe recall" : ""
      } per engine (%), with 95% CIs; n/a where there is none`,
      series: [
        recall("needles (verbatim)", (r) => r.needles.recall, (e) => e.needle_recall),
        recall("QA", (r) => r.qa?.recall ?? null, (e) => e.qa_recall),
        ...(probes ? [recall("probes", (r) => r.probes?.recall ?? null, (e) => e.probe_recall)] : []),
      ],
      yLabel: "recall %",
      ...percent,
    }),
    chart("Latency", {
      title: "Cold, warm-mean (95% CI over repeats) and warm-median compress time per engine: the engine's " +
        "own call (a one-shot engine's round trip, process start included) (ms, log scale)",
      series: [
        { name: "cold", values: results.map((r) => own(r).cold) },
        {
          name: "warm mean",
          values: results.map((r) => own(r).warm_mean),
          errors: errorBars(stats, (e) => e.warm_latency_ms, 1),
        },
        { name: "warm median", values: results.map((r) => own(r).warm_median) },
      ],
      format: (v) => ms(v),
      yLabel: "milliseconds (log scale)",
      scale: "log",
    }),
  ];
  return rawHtml(figures.map((f) => f.markup).join("\n"));
}

type Recall = { pick: (r: EngineResult) => number | null; interval: (e: EngineIntervals) => Interval | null };

/**
 * The recall-at-retained-tokens section (several budgets): the table, and curves of needle and QA recall
 * against retained tokens, one per engine (failed and skipped points are gaps); the QA figure has a second
 * curve per engine with recall tools (its points without a value left out).
 */
function recallCurvesHtml(
  results: readonly EngineResult[],
  stats: EnginesStats,
  meta: EnginesReportMeta,
): Html {
  const names = [...new Set(results.map((r) => engineLabel(r)))];
  const line = (name: string, suffix: string, { pick, interval }: Recall): CurveSeries => ({
    name: name + suffix,
    points: results.flatMap((r, i) => {
      if (engineLabel(r) !== name || r.status !== "ok" || r.output_tokens === null) return [];
      const v = pick(r);
      if (v === null && suffix !== "") return [];
      const ci = stats.engines[i] ? interval(stats.engines[i]) : null;
      return [{
        x: r.output_tokens,
        y: v === null ? null : 100 * v,
        label: `budget ${r.budget}${suffix}`,
        ...(v !== null && ci !== null && Number.isFinite(ci.lo) ? { lo: 100 * ci.lo, hi: 100 * ci.hi } : {}),
      }];
    }).sort((a, b) => a.x - b.x),
  });
  const curve = (caption: string, title: string, window: Recall, recovered?: Recall) => {
    const series = names.map((name) => line(name, "", window));
    if (recovered) series.push(...names.map((name) => line(name, " +recovery", recovered)));
    const points = series.filter((s) => s.points.length > 0);
    const xLabel = "tokens kept in the window";
    return figure(caption, curveChart({ title, xLabel, yLabel: "recall %", series: points, yMax: 100 }));
  };
  const t = budgetCurveRows(results, meta);
  const perBudget = "one curve per engine (one point per budget, with its 95% CI)";
  return safeHtml`<h2>Recall at retained tokens</h2>
${table(t.header, t.rows, 1)}
${
    curve(
      `Needle recall against tokens kept, ${perBudget}`,
      "Needle recall (verbatim, %) against tokens kept",
      { pick: (r) => r.needles.recall, interval: (e) => e.needle_recall },
    )
  }
${
    curve(
      `QA recall against tokens kept, ${perBudget}; an engine with recall tools has a second curve, ` +
        "+recovery, its recall with the tools offered",
      "QA recall (%) against tokens kept",
      { pick: (r) => r.qa?.recall ?? null, interval: (e) => e.qa_recall },
      { pick: (r) => r.recovery?.qa?.recall ?? null, interval: (e) => e.qa_recall_recovery ?? null },
    )
  }`;
}

function plainNote(text: string): string {
  return text.replace(/[*`]/g, "");
}

/** Renders report.html for an engines run (self-contained, deterministic; see the module notes). */
export function enginesReportHtml(results: EngineResult[], meta: EnginesReportMeta): string {
  const title = ENGINES_REPORT_TITLE;
  const reference = meta.reference
    ? banner(
      safeHtml`<strong>Reference model.</strong> The models are the offline reference model (deterministic, extractive): a weak but honest baseline, not an LLM and not a measure of any real LLM.`,
    )
    : "";
  const multi = budgetsOf(results, meta).length > 1;
  const stats = statsOf(results, meta);
  const byType = probeTypeRows(results);
  const recovery = recoveryRows(results);
  const changed = meta.answering ? modelChangeNotice(meta.answering) : null;
  const notice = changed ? banner(safeHtml`<strong>Answering model changed.</strong> ${changed}`) : "";
  const body = safeHtml`<h1>${title}</h1>
${notice}${reference}
<h2>Run</h2>
${factList(enginesFacts(HTML, results, meta))}
<h2>Results</h2>
${
    // Smaller type for this wide table only, so that it fits a 1,400-pixel window.
    safeHtml`<div style="font-size: 0.86em">${
      table(ENGINE_HTML_TABLE_HEADER, engineHtmlTableRows(results), 3)
    }</div>`}${paragraphs(plainNote(ENGINES_TABLE_NOTE), "note")}<h3>${ENGINES_PARITY_HEADING}</h3>
${paragraphs(plainNote(ENGINES_PARITY_NOTE), "note")}${
    engineNotes(results).length > 0
      ? safeHtml`<h3>${ENGINE_NOTES_HEADING}</h3>
${factList(engineNotes(results).map((note) => safeHtml`${note}`))}`
      : ""
  }
${locomoHtml(stats)}<h3>95% CI</h3>
${table(enginesCiHeaders(stats), enginesIntervalRows(stats), 2)}${
    paragraphs(enginesStatsNote(stats), "note")
  }${
    problemLists(results).map(([heading, rows]) =>
      safeHtml`<h3>${heading}</h3>
${factList(rows.map((p) => safeHtml`${code(p.engine)} at ${p.budget}: ${p.text}`))}`
    )
  }${
    recovery !== null
      ? safeHtml`<h3>Recall with recovery</h3>
${paragraphs(plainNote(RECOVERY_NOTE), "note")}
${table(recovery.header, recovery.rows, 4)}`
      : ""
  }${
    byType !== null
      ? safeHtml`<h3>Probe recall per type</h3>
${table(byType.header, byType.rows, 2)}`
      : ""
  }${multi ? recallCurvesHtml(results, stats, meta) : ""}
${barCharts(results, stats, multi)}
${meta.explorer ? explorerHtml(meta.explorer) : ""}`;
  return htmlPage({ title, body });
}
