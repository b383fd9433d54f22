/**
 * The engines report.html: the REPORT.md engines section (run facts, the table with the same columns and
 * number formats, the failures) plus charts of savings, recall (needles, QA and, when asked, probes; "n/a"
 * where there is no value, never 0 or 1) and cold against warm-median latency on a log scale.
 *
 * @module
 */
import { ENGINE_TABLE_HEADER, type EnginesReportMeta, engineTableRows } from "./report.ts";
import type { EngineResult } from "./run.ts";
import { barChart, type ChartSeries } from "../../report/charts.ts";
import {
  banner,
  code,
  factList,
  figure,
  type Html,
  htmlPage,
  htmlTable,
  paragraphs,
  safeHtml,
} from "../../report/html.ts";

function ms(value: number | null): string {
  return value === null ? "-" : value < 10 ? value.toFixed(2) : value.toFixed(0);
}

function runFacts(results: readonly EngineResult[], meta: EnginesReportMeta): Html {
  const first = results[0];
  const items: (Html | string)[] = [
    safeHtml`Transcript: ${meta.transcript} — ${first?.messages_in ?? 0} messages, ${
      first?.input_tokens ?? 0
    } tokens (${meta.tokenizer}), hash ${code(meta.transcriptHash)}`,
    `Budget: ${
      first?.budget_tokens ?? "-"
    } tokens; ${meta.repeats} warm repeats after one cold call per engine`,
  ];
  if (meta.chatModel) items.push(safeHtml`Chat model: ${code(meta.chatModel)}`);
  if (meta.decisionModel) items.push(safeHtml`Decision model: ${code(meta.decisionModel)}`);
  return factList(items);
}

/** Chart values: a result's value as a percentage, or null (n/a) when it has none or failed. */
function percentOf(
  results: readonly EngineResult[],
  pick: (r: EngineResult) => number | null,
): (number | null)[] {
  return results.map((r) => {
    const v = r.status === "ok" ? pick(r) : null;
    return v === null ? null : Number((100 * v).toFixed(1));
  });
}

function recallChart(results: readonly EngineResult[], notes: (string | null)[]): Html {
  const series: ChartSeries[] = [
    { name: "needles (verbatim)", values: percentOf(results, (r) => r.needles.recall) },
    { name: "QA", values: percentOf(results, (r) => r.qa?.recall ?? null) },
  ];
  const probes = results.some((r) => r.probes !== null);
  if (probes) series.push({ name: "probes", values: percentOf(results, (r) => r.probes?.recall ?? null) });
  return barChart({
    title: `Needle recall, QA recall${
      probes ? " and probe recall" : ""
    } per engine (%); n/a where there is none`,
    categories: results.map((r) => r.engine),
    series,
    format: (v) => `${v.toFixed(1)}%`,
    yLabel: "recall %",
    max: 100,
    notes,
  });
}

function savingsChart(results: readonly EngineResult[], notes: (string | null)[]): Html {
  return barChart({
    title: "Token savings per engine (%)",
    categories: results.map((r) => r.engine),
    series: [{
      name: "saved",
      values: results.map((r) => r.savings_pct === null ? null : Number(r.savings_pct.toFixed(1))),
    }],
    format: (v) => `${v.toFixed(1)}%`,
    yLabel: "saved %",
    max: 100,
    notes,
  });
}

function latencyChart(results: readonly EngineResult[], notes: (string | null)[]): Html {
  return barChart({
    title: "Cold and warm-median latency of the compress call per engine (ms, log scale)",
    categories: results.map((r) => r.engine),
    series: [
      { name: "cold", values: results.map((r) => r.latency_ms.cold) },
      { name: "warm median", values: results.map((r) => r.latency_ms.warm_median) },
    ],
    format: (v) => ms(v),
    yLabel: "milliseconds (log scale)",
    scale: "log",
    notes,
  });
}

/** Renders report.html for an engines run (self-contained, deterministic; see the module notes). */
export function enginesReportHtml(results: EngineResult[], meta: EnginesReportMeta): string {
  const title = "engines: context engines head to head";
  const reference = meta.reference
    ? banner(
      safeHtml`<strong>Reference model.</strong> The models are the offline reference model (deterministic, extractive): a weak but honest baseline, not an LLM and not a measure of any real LLM.`,
    )
    : "";
  const failed = results.filter((r) => r.reason !== null);
  const notes = results.map((r) => r.status === "failed" ? "failed" : null);
  const body = safeHtml`<h1>${title}</h1>
${reference}
<h2>Run</h2>
${runFacts(results, meta)}
<h2>Results</h2>
${
    htmlTable(ENGINE_TABLE_HEADER, engineTableRows(results), {
      align: ENGINE_TABLE_HEADER.map((_, i) => i === 0 ? "left" : "right"),
    })
  }${
    paragraphs(
      "Tokens are counted with the model's chat template and tokenizer. Needles: the share of planted fact " +
        "sentences found verbatim in the window (n/a without needles). QA: the share of needle questions the chat " +
        "model answered from the window alone (reply contains the gold answer, case and whitespace folded; it is " +
        "told to reply NOT IN CONTEXT otherwise); probes: the same for imported questions. Latency times the " +
        "compress call alone: the cold first call apart from the median and p95 (nearest rank) of the warm calls.",
      "note",
    )
  }${
    failed.length > 0
      ? safeHtml`<h3>Failures</h3>
${factList(failed.map((r) => safeHtml`${code(r.engine)}: ${r.reason ?? ""}`))}`
      : ""
  }
${figure("Savings", savingsChart(results, notes))}
${figure("What survives in the window", recallChart(results, notes))}
${figure("Latency", latencyChart(results, notes))}`;
  return htmlPage({ title, body });
}
