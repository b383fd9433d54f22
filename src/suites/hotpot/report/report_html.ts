/**
 * The hotpot report.html: REPORT.md's content plus a chart of the charted metrics per method and one of mean
 * input tokens per method against the ceiling.
 * @module
 */
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import { hotpotMetricsIn } from "../run/metrics.ts";
import { mergeAnsweringModels, modelChangeNotice } from "../../../core/answering_models.ts";
import {
  byTypeTable,
  ceilingSweepHtml,
  COLLECTION_HEADERS,
  collectionRows,
  distinctSystemPrompts,
  HOTPOT_CAVEATS,
  hotpotFacts,
  type HotpotReportMeta,
  hotpotReportTitle,
  hotpotResultHeaders,
  hotpotResultRows,
  hotpotStatsSections,
  hotpotWarnings,
  hypothesisVerdictText,
  hypothesisWithInterval,
  invalidReasonsSections,
  invalidShares,
  usageTable,
} from "./report.ts";
import { barChart } from "../../../report/charts.ts";
import { explorerHtml } from "../../../report/explorer.ts";
import { costSection } from "../../../analysis/cost.ts";
import {
  banner,
  code,
  factList,
  figure,
  HTML,
  htmlPage,
  htmlTable,
  paragraphs,
  safeHtml,
  sectionHtml,
  sectionsHtml,
} from "../../../report/html.ts";
import { formatCell } from "../../../core/markdown_table.ts";

const pct = (x: number) => Number((100 * x).toFixed(1));

function scoreChart(aggregates: readonly HotpotMethodAggregate[], meta: HotpotReportMeta) {
  const ci = (metric: string) =>
    aggregates.map((a) => {
      const m = meta.stats?.methods.find((s) => s.method === a.method)?.intervals[metric];
      return m ? { lo: pct(m.lo), hi: pct(m.hi) } : null;
    });
  const charted = hotpotMetricsIn("chart");
  const labels = charted.map((m) => m.label);
  return barChart({
    title: `${labels.slice(0, -1).join(", ")}${labels.length > 1 ? " and " : ""}${
      labels.at(-1)
    } per method (%)`,
    categories: aggregates.map((a) => a.method),
    series: charted.map((m) => ({
      name: m.label,
      values: aggregates.map((a) => pct(m.aggregate(a) ?? 0)),
      errors: ci(m.name),
    })),
    format: (v) => formatCell(v, 1),
    yLabel: "percent",
    max: 100,
  });
}

function tokensChart(aggregates: readonly HotpotMethodAggregate[], meta: HotpotReportMeta) {
  return barChart({
    title:
      `Mean provider input tokens of the answer calls per method, with the ${meta.inputCap}-token ceiling`,
    categories: aggregates.map((a) => a.method),
    series: [{
      name: "input tok mean",
      values: aggregates.map((a) => a.input_tokens.mean === null ? null : Math.round(a.input_tokens.mean)),
    }],
    format: (v) => formatCell(v, 1),
    yLabel: "input tokens",
    referenceLines: [{ label: `ceiling ${meta.inputCap}`, value: meta.inputCap, series: 5 }],
    notes: aggregates.map((a) => a.over_cap > 0 ? `${a.over_cap} over cap` : null),
  });
}

/** Renders report.html for a hotpot run (self-contained, deterministic). */
export function hotpotReportHtml(aggregates: HotpotMethodAggregate[], meta: HotpotReportMeta): string {
  const title = hotpotReportTitle(meta.corpus, meta.inputCap, meta.ceilings?.map((c) => c.cap));
  const reference = meta.models.mode === "reference"
    ? banner(
      safeHtml`<strong>Reference model.</strong> These numbers come from the built-in deterministic reference model, an honest but weak extractive baseline (BM25 relevance, extractive summaries and answers), not an LLM. It never sees gold labels. They show the harness works end to end; they say nothing about any real LLM.`,
    )
    : "";
  const answering = mergeAnsweringModels(aggregates.map((a) => a.models));
  const changed = modelChangeNotice(answering);
  const notice = changed ? banner(safeHtml`<strong>Answering model changed.</strong> ${changed}`) : "";
  const valid = meta.corpus.questions.filter((q) => q.valid).length;
  const warnings = hotpotWarnings(aggregates, valid, meta.inputCap)
    .map((w) => banner(safeHtml`<strong>Warning.</strong> ${w}`));
  // The predeclared hypothesis's verdict comes first: it is what the run was for.
  const body = safeHtml`<h1>${title}</h1>
${warnings}${notice}${reference}
<h2>Hypothesis</h2>
${paragraphs(hypothesisWithInterval(hypothesisVerdictText(aggregates), meta.stats))}
<h2>Run</h2>
${factList(hotpotFacts(HTML, meta, aggregates, answering))}
<h2>Results${meta.ceilings ? ` at the ${meta.inputCap}-token ceiling` : ""}</h2>
${
    paragraphs(
      "Percentages; answers averaged within a question, then questions equally; invalid conditions count zero. " +
        '"gold SP kept" is LLM-free: the share of gold supporting sentences present verbatim in the text the model ' +
        "reads (tool results decoded from their JSON), the same for every method; zero for invalid conditions. " +
        "Input tokens are the provider's reported prompt tokens of the answer calls. " +
        '"over cap" counts answer inputs (contexts, not answers) not within the ceiling.',
      "note",
    )
  }${htmlTable(hotpotResultHeaders(), hotpotResultRows(aggregates), { digits: 1 })}
${invalidReasonsSections(meta.invalidReasons).map((s) => safeHtml`${sectionHtml(s)}\n`)}${
    // The notes without REPORT.md's code marks (the seed).
    meta.stats
      ? sectionsHtml(
        hotpotStatsSections(meta.stats, invalidShares(aggregates)).map((s) => ({
          ...s,
          note: s.note?.replaceAll("`", ""),
        })),
      )
      : ""}
${
    figure(
      `Answer and supporting-fact scores per method${meta.stats ? " (error bars: 95% CI)" : ""}`,
      scoreChart(aggregates, meta),
    )
  }
${figure("Answer input size per method", tokensChart(aggregates, meta))}
${meta.ceilings ? ceilingSweepHtml(meta.ceilings) : ""}
<h3>EM by question type</h3>
${htmlTable(...byTypeTable(aggregates), { digits: 1 })}
<h2>Compression usage</h2>
${htmlTable(...usageTable(aggregates))}
${
    paragraphs(
      "Calls made by this run: nodes reused from a frozen run were paid for there. Rankings are shared by Jev " +
        "and Jev+Summary within a generation and counted in both rows.",
      "note",
    )
  }
${meta.cost ? sectionHtml(costSection(meta.cost)) : ""}
<h2>Caveats</h2>
${factList(HOTPOT_CAVEATS)}
<h2>Collected trajectories</h2>
${
    paragraphs(
      "Each trajectory's initial system prompt is the collecting agent's own (recorded and hashed, never replaced).",
      "note",
    )
  }${htmlTable(COLLECTION_HEADERS, collectionRows(meta.corpus))}
${
    factList(
      distinctSystemPrompts(meta.corpus).map((p) =>
        safeHtml`${code(p.sha256)} (${p.questions} question(s)): ${p.text}`
      ),
    )
  }
${meta.explorer ? explorerHtml(meta.explorer) : ""}`;
  return htmlPage({ title, body });
}
