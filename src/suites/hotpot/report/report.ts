/**
 * The hotpot REPORT.md: results table, counts, usage and the predeclared hypothesis, stated descriptively.
 * @module
 */
import { type Cell, markdownTable } from "../../../core/markdown_table.ts";
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import { hotpotMetricsIn } from "../run/metrics.ts";
import { mergeAnsweringModels, modelChangeNotice, modelsFact } from "../../../core/answering_models.ts";
import type { ReportCorpus } from "../question_card.ts";
import { hypothesisVerdictText } from "./hypothesis.ts";
import { hotpotWarnings } from "./headline.ts";
import {
  COLLECTION_HEADERS,
  collectionModeText,
  collectionRows,
  distinctSystemPrompts,
  filesUnchangedText,
  HOTPOT_CAVEATS,
  hotpotReportTitle,
} from "./report_protocol.ts";
import type { HotpotStats } from "./stats.ts";
import type { ExplorerData, PackedExplorer } from "../../../report/explorer.ts";
import type { RunCost } from "../../../analysis/cost.ts";
import { type CeilingResult, ceilingSweepMarkdown } from "./ceiling_sweep.ts";
import { costMarkdown } from "../../../analysis/cost_report.ts";
import { engineMethodsText } from "../../method_selection.ts";
import { hotpotStatsMarkdown, hypothesisWithInterval } from "./stats_report.ts";
import { invalidShares } from "./stats_report.ts";
import { type InvalidReason, invalidReasonsMarkdown } from "./invalid_reasons.ts";

/** What the report states about the run besides the aggregates. */
export interface HotpotReportMeta {
  corpus: ReportCorpus;
  models: { mode: string; chat_model: string; decision_model: string; note: string };
  tokenizer: string;
  inputCap: number;
  reserve: number;
  compressions: number;
  answers: number;
  /** Intervals and paired differences (absent: the report shows point estimates only). */
  stats?: HotpotStats;
  /** The per-question explorer of report.html (absent: no explorer). */
  explorer?: ExplorerData | PackedExplorer;
  /** The cost section (absent when no price was given). */
  cost?: RunCost;
  /** A ceiling sweep's per-ceiling results (absent: one ceiling). */
  ceilings?: CeilingResult[];
  /** Why conditions were invalid (absent or empty: every condition was valid). */
  invalidReasons?: InvalidReason[];
  /** The engine methods (absent: none). */
  engines?: { name: string; spec: string; deterministic: boolean }[];
}

const pct = (x: number) => Number((100 * x).toFixed(1));

/** Column names of the hotpot results table (REPORT.md and report.html): the table's metrics, then counts. */
export function hotpotResultHeaders(): string[] {
  return [
    "method",
    ...hotpotMetricsIn("table").map((m) => m.label),
    "valid/planned",
    "input tok mean",
    "input tok total",
    "over cap",
  ];
}

/** The cells of the hotpot results table, one row per method (percentages with one decimal). */
export function hotpotResultRows(aggregates: readonly HotpotMethodAggregate[]): Cell[][] {
  return aggregates.map((a) => [
    a.method,
    ...hotpotMetricsIn("table").map((m) => pct(m.aggregate(a) ?? 0)),
    `${a.valid}/${a.planned}`,
    a.input_tokens.mean === null ? null : Math.round(a.input_tokens.mean),
    a.input_tokens.total,
    a.over_cap,
  ]);
}

/** The compression-usage table's header and rows, one row per method. */
export function usageTable(aggregates: readonly HotpotMethodAggregate[]): [string[], Cell[][]] {
  return [
    ["method", "compression calls", "compression input tokens", "compression output tokens"],
    aggregates.map(({ method, compression_usage: u }) => [method, u.calls, u.input_tokens, u.output_tokens]),
  ];
}

/** The EM-by-question-type table's header and rows (percentages). */
export function byTypeTable(aggregates: readonly HotpotMethodAggregate[]): [string[], Cell[][]] {
  const types = [...new Set(aggregates.flatMap((a) => Object.keys(a.em_by_type)))];
  return [
    ["method", ...types.map((t) => `EM ${t}`)],
    aggregates.map((a) => [a.method, ...types.map((t) => pct(a.em_by_type[t] ?? 0))]),
  ];
}

/** The line saying for how many questions the ceiling did not bind Full (with newline; empty: no Full). */
export function ceilingBindText(
  aggregates: readonly HotpotMethodAggregate[],
  questions: number,
  inputCap: number,
): string {
  const full = aggregates.find((a) => a.method === "full");
  if (full === undefined || questions === 0) return "";
  const under = Math.max(0, questions - full.over_cap);
  return `- Ceiling: the ceiling did not bind for ${under} of ${questions} questions (their Full context is ` +
    `within ${inputCap} tokens, so they needed no compaction)${
      under === questions
        ? "; compaction was not needed for any question: raise --min-chars or lower --input-cap"
        : ""
    }\n`;
}

/** Renders REPORT.md. */
export function hotpotReportMarkdown(
  aggregates: readonly HotpotMethodAggregate[],
  meta: HotpotReportMeta,
): string {
  const table = markdownTable(hotpotResultHeaders(), hotpotResultRows(aggregates), 1);
  const usage = markdownTable(...usageTable(aggregates));
  const byType = markdownTable(...byTypeTable(aggregates), 1);
  const c = meta.corpus;
  const invalid = c.questions.filter((q) => !q.valid);
  const removed = Object.entries(c.selection.removed).map(([k, v]) => `${k}: ${v}`).join(", ");
  const reference = meta.models.mode === "reference"
    ? `\n> **Reference model.** These numbers come from the built-in deterministic reference model, an honest but ` +
      `weak extractive baseline (BM25 relevance, extractive summaries and answers). It never sees gold labels. ` +
      `They show the harness works end to end; they say nothing about any real LLM.\n`
    : "";
  const unverifiable = filesUnchangedText(c);
  const answering = mergeAnsweringModels(aggregates.map((a) => a.models));
  const changed = modelChangeNotice(answering);
  const notice = changed ? `\n> **Answering model changed.** ${changed}\n` : "";
  const warnings = hotpotWarnings(aggregates, c.questions.filter((q) => q.valid).length, meta.inputCap)
    .map((w) => `\n> **Warning.** ${w}\n`).join("");
  const prompts = distinctSystemPrompts(c).map((p) =>
    `- \`${p.sha256}\` (${p.questions} question(s)):\n\n  > ${p.text.replace(/\n/g, "\n  > ")}`
  ).join("\n");
  return `# ${hotpotReportTitle(c, meta.inputCap, meta.ceilings?.map((x) => x.cap))}
${warnings}${notice}${reference}
- Dataset: \`${c.dataset.path}\` (sha256 \`${c.dataset.sha256}\`, ${c.dataset.records} records)
- Selection: seed ${c.protocol.seed}, ${c.protocol.bridge} bridge + ${c.protocol.comparison} comparison,
  ${c.protocol.min_chars}–${c.protocol.max_chars} evidence characters; considered ${c.selection.considered}; removed
  by filter: ${removed}
- Collection: ${collectionModeText(c)}; ${c.questions.length - invalid.length}/${c.questions.length} valid${
    unverifiable ? `; ${unverifiable}` : ""
  }
${invalid.map((q) => `  - ${q.id}: ${q.reason}`).join("\n")}
- Models: ${modelsFact(meta.models, answering, (name) => `\`${name}\``)} (${meta.models.note})
- Tokenizer: ${meta.tokenizer}; ceiling ${meta.inputCap} tokens (reserve ${meta.reserve}) on the complete answer input
${
    ceilingBindText(
      aggregates,
      c.questions.filter((q) => q.valid).length,
      meta.inputCap,
    )
  }- Repeats: ${meta.compressions} compression generation(s) × ${meta.answers} answer(s) per question and method${
    meta.engines ? `\n- ${engineMethodsText(meta.engines)}` : ""
  }

## Results${meta.ceilings ? ` at the ${meta.inputCap}-token ceiling` : ""}

${
    meta.ceilings
      ? "The other ceilings: see the ceiling sweep below.\n\n"
      : ""
  }Percentages; answers averaged within a question, then questions equally; invalid conditions count zero.
"gold SP kept" is LLM-free: the share of gold supporting sentences present verbatim in the text the model
reads (tool results decoded from their JSON), the same for every method; zero for invalid conditions.
Input tokens are the provider's reported prompt tokens of the answer calls. "over cap" counts answer inputs
(contexts, not answers) not within the ceiling (exact count plus reserve above the ceiling).

${table}
${invalidReasonsMarkdown(meta.invalidReasons)}${
    meta.stats ? hotpotStatsMarkdown(meta.stats, invalidShares(aggregates)) : ""
  }${meta.ceilings ? ceilingSweepMarkdown(meta.ceilings) : ""}
### EM by question type

${byType}

## Compression usage

${usage}

(Calls made by this run: nodes reused from a frozen run were paid for there. Rankings are shared by Jev and
Jev+Summary within a generation and counted in both rows.)
${meta.cost ? costMarkdown(meta.cost) : ""}
## Hypothesis

${hypothesisWithInterval(hypothesisVerdictText(aggregates), meta.stats)}

## Caveats

${HOTPOT_CAVEATS.map((line) => `- ${line}`).join("\n")}

## Collected trajectories

Each trajectory's initial system prompt is the collecting agent's own (recorded and hashed, never replaced).

${markdownTable(COLLECTION_HEADERS, collectionRows(c))}

System prompts:

${prompts || "(none)"}
`;
}
