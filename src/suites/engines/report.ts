/**
 * Presenting engine results: a plain-text table for stdout and a Markdown report section.
 *
 * @module
 */
import type { EngineResult } from "./run.ts";

/** What the Markdown report says about the run besides the results. */
export interface EnginesReportMeta {
  /** Where the transcript came from, e.g. "generated (turns 200, needles 12, words 60)" or a file path. */
  transcript: string;
  transcriptHash: string;
  tokenizer: string;
  chatModel?: string;
  decisionModel?: string;
  /** True when the models are the offline reference model (labelled as a weak baseline). */
  reference?: boolean;
  repeats: number;
}

function pct(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

function ms(value: number | null): string {
  return value === null ? "-" : value < 10 ? value.toFixed(2) : value.toFixed(0);
}

function num(value: number | null): string {
  return value === null ? "-" : String(value);
}

/** The cells of the engines table, one row per engine (shared by the text, Markdown and HTML tables). */
export function engineTableRows(results: readonly EngineResult[]): string[][] {
  return results.map((r) => [
    r.engine,
    r.status,
    String(r.input_tokens),
    num(r.output_tokens),
    r.savings_pct === null ? "-" : `${r.savings_pct.toFixed(1)}%`,
    r.within_budget === null ? "-" : r.within_budget ? "yes" : "no",
    num(r.messages_out),
    r.tool_pairing_valid === null ? "-" : r.tool_pairing_valid ? "valid" : "broken",
    r.status === "ok" ? pct(r.needles.recall) : "-",
    r.qa === null ? "n/a" : pct(r.qa.recall),
    r.probes === null ? "n/a" : pct(r.probes.recall),
    ms(r.latency_ms.cold),
    ms(r.latency_ms.warm_median),
    ms(r.latency_ms.warm_p95),
    r.usage === null ? "-" : String(r.usage.calls),
  ]);
}

/** The column names of the engines table. */
export const ENGINE_TABLE_HEADER = [
  "engine",
  "status",
  "in tok",
  "out tok",
  "saved",
  "in budget",
  "msgs out",
  "tool pairs",
  "needles",
  "QA",
  "probes",
  "cold ms",
  "warm med ms",
  "warm p95 ms",
  "model calls",
];

/** A plain-text table of the results, columns aligned, failures' reasons listed below. */
export function formatEnginesTable(results: EngineResult[]): string {
  const table = [ENGINE_TABLE_HEADER, ...engineTableRows(results)];
  const widths = ENGINE_TABLE_HEADER.map((_, c) => Math.max(...table.map((row) => row[c].length)));
  const lines = table.map((row) =>
    row.map((cell, c) => c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])).join("  ")
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of results) if (r.reason !== null) lines.push(`${r.engine}: failed: ${r.reason}`);
  return lines.join("\n");
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** The engines section of REPORT.md. */
export function enginesReportMarkdown(results: EngineResult[], meta: EnginesReportMeta): string {
  const budget = results[0]?.budget_tokens;
  const lines = [
    "## Engines",
    "",
    `- Transcript: ${meta.transcript} — ${results[0]?.messages_in ?? 0} messages, ${
      results[0]?.input_tokens ?? 0
    } tokens (${meta.tokenizer}), hash \`${meta.transcriptHash}\``,
    `- Budget: ${budget ?? "-"} tokens; ${meta.repeats} warm repeats after one cold call per engine`,
  ];
  if (meta.chatModel) lines.push(`- Chat model: ${meta.chatModel}`);
  if (meta.decisionModel) lines.push(`- Decision model: ${meta.decisionModel}`);
  if (meta.reference) {
    lines.push(
      "- Models: the offline **reference model** (deterministic, extractive): a weak but honest baseline, " +
        "not a measure of any real LLM.",
    );
  }
  lines.push(
    "",
    `| ${ENGINE_TABLE_HEADER.join(" | ")} |`,
    `| ${ENGINE_TABLE_HEADER.map((_, i) => i === 0 ? "---" : "---:").join(" | ")} |`,
    ...engineTableRows(results).map((row) => `| ${row.map(escapeCell).join(" | ")} |`),
    "",
    "Tokens are counted with the model's chat template and tokenizer. *needles* is the share of planted " +
      "fact sentences found verbatim in the window (n/a without needles). *QA* is the share of needle " +
      "questions the chat model answered from the window alone (reply contains the gold answer, case and " +
      "whitespace folded; it is told to reply `NOT IN CONTEXT` otherwise); *probes* the same for imported " +
      "questions. Latency times the compress call alone: the cold first call apart from the median and p95 " +
      "(nearest rank) of the warm calls.",
  );
  const failed = results.filter((r) => r.reason !== null);
  if (failed.length > 0) {
    lines.push(
      "",
      "### Failures",
      "",
      ...failed.map((r) => `- \`${escapeCell(r.engine)}\`: ${escapeCell(r.reason!)}`),
    );
  }
  return lines.join("\n") + "\n";
}
