/**
 * The hotpot REPORT.md (results, counts, usage, the hypothesis stated descriptively) and what both reports
 * say about the protocol and about why conditions were invalid.
 * @module
 */
import { type Cell, markdownTable } from "../../../core/markdown_table.ts";
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import { hotpotMetricsIn } from "../run/metrics.ts";
import { mergeAnsweringModels, modelChangeNotice, modelsFact } from "../../../core/answering_models.ts";
import type { ReportCorpus } from "../question_card.ts";
import { hotpotWarnings, hypothesisVerdictText } from "./headline.ts";
import type { HotpotStats } from "./stats.ts";
import type { ExplorerData, PackedExplorer } from "../../../report/explorer.ts";
import type { RunCost } from "../../../analysis/cost.ts";
import { type CeilingResult, ceilingSweepMarkdown } from "./ceiling_sweep.ts";
import { costMarkdown } from "../../../analysis/cost_report.ts";
import { engineMethodsText } from "../../method_selection.ts";
import { hotpotStatsMarkdown, hypothesisWithInterval, invalidShares } from "./stats_report.ts";
import type { HotpotRowCore } from "../run/rows.ts";

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

/** The protocol's caveats, stated in every hotpot report. */
export const HOTPOT_CAVEATS: readonly string[] = [
  "Compression has its own provider usage (see Compression usage): a lower answer input is not a billing " +
  "claim.",
  "The questions are a filtered subset (seeded selection, evidence-length and article filters), not a " +
  "representative full-dataset score.",
  "HotpotQA is public: its questions and answers may be in a model's training data.",
  "This is evidence-grounded question answering after compaction, not evidence of agent-task success.",
];

/** The collection mode in words, e.g. `hermes (imported Hermes Agent sessions)`. */
export function collectionModeText(corpus: ReportCorpus): string {
  const p = corpus.protocol;
  switch (p.collection) {
    case "scripted":
      return "scripted (this program read every file with real read_file calls; not an agent)";
    case "live":
      return "live (an agent loop with the chat model)";
    case "hermes":
      return "hermes (imported Hermes Agent sessions)";
    case "agent":
      return `agent (outside agent \`${p.agent ?? "exec"}\`)`;
  }
}

/** The report title, naming the collection mode. */
export function hotpotReportTitle(
  corpus: ReportCorpus,
  inputCap: number,
  ceilings?: readonly number[],
): string {
  const limit = ceilings && ceilings.length > 1
    ? `answer-input ceilings ${ceilings.join(", ")}`
    : `a ${inputCap}-token answer-input ceiling`;
  return `hotpot (${corpus.protocol.collection} collection): compaction under ${limit}`;
}

/** One line on the workspace check, or null when every question was verified. */
export function filesUnchangedText(corpus: ReportCorpus): string | null {
  const n = corpus.questions.filter((q) => q.files_unchanged !== "verified").length;
  if (n === 0) return null;
  return `"files unchanged" not verifiable for ${n}/${corpus.questions.length} question(s) (no workspace ` +
    `hashes in the session); every tool result was still checked against the original file`;
}

/** Column names of the per-question collection table. */
export const COLLECTION_HEADERS = ["question", "type", "valid", "files unchanged", "system prompt sha256"];

/** Per question: id, type, validity, the workspace check and the initial system prompt's hash (16 hex). */
export function collectionRows(corpus: ReportCorpus): Cell[][] {
  return corpus.questions.map((q) => [
    q.id,
    q.type,
    q.valid ? "yes" : "no",
    q.files_unchanged ?? "not verifiable",
    q.system_prompt ? q.system_prompt.sha256.slice(0, 16) : "missing",
  ]);
}

/** The distinct initial system prompts with their hashes and how many questions carry each. */
export function distinctSystemPrompts(
  corpus: ReportCorpus,
): { sha256: string; text: string; questions: number }[] {
  const byHash = new Map<string, { sha256: string; text: string; questions: number }>();
  for (const q of corpus.questions) {
    if (!q.system_prompt) continue;
    const entry = byHash.get(q.system_prompt.sha256) ??
      { sha256: q.system_prompt.sha256, text: q.system_prompt.text, questions: 0 };
    entry.questions++;
    byHash.set(entry.sha256, entry);
  }
  return [...byHash.values()].sort((a, b) => a.sha256.localeCompare(b.sha256));
}

/** One kind of reason for one method: its invalid rows of the method's `planned`, the first reason whole. */
export interface InvalidReason {
  method: string;
  kind: string;
  count: number;
  planned: number;
  example: string;
}

/** At most this many characters of an example are shown. */
const EXAMPLE_CHARS = 200;

/** The kind of a reason: the text before its first colon (the whole text without one). */
function reasonKind(reason: string): string {
  const colon = reason.indexOf(":");
  return (colon > 0 ? reason.slice(0, colon) : reason).trim() || "no reason given";
}

/** The invalid rows' reasons by method (in the order methods first appear) and kind (most frequent first). */
export function invalidReasons(
  rows: readonly Pick<HotpotRowCore, "method" | "status" | "reason">[],
): InvalidReason[] {
  const planned = new Map<string, number>();
  const byMethod = new Map<string, Map<string, InvalidReason>>();
  for (const row of rows) {
    planned.set(row.method, (planned.get(row.method) ?? 0) + 1);
    if (!byMethod.has(row.method)) byMethod.set(row.method, new Map());
    if (row.status === "ok") continue;
    const reason = row.reason ?? "no reason given";
    const kinds = byMethod.get(row.method)!;
    const kind = reasonKind(reason);
    const entry = kinds.get(kind) ?? { method: row.method, kind, count: 0, planned: 0, example: reason };
    entry.count++;
    kinds.set(kind, entry);
  }
  return [...byMethod].flatMap(([method, kinds]) =>
    [...kinds.values()]
      .map((entry) => ({ ...entry, planned: planned.get(method) ?? 0 }))
      .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind))
  );
}

/** Column names of the invalid-reasons table. */
export const INVALID_REASON_HEADERS = ["method", "invalid answers", "reason", "example"];

/** Rows of the invalid-reasons table. */
export function invalidReasonRows(reasons: readonly InvalidReason[]): Cell[][] {
  return reasons.map((r) => {
    // One line whatever a reason holds (a provider's error text may span lines).
    const example = r.example.replace(/\s+/g, " ");
    return [
      r.method,
      `${r.count}/${r.planned}`,
      r.kind.replace(/\s+/g, " "),
      example.length > EXAMPLE_CHARS ? `${example.slice(0, EXAMPLE_CHARS)}…` : example,
    ];
  });
}

/** The sentence above the table. */
export const INVALID_REASONS_NOTE =
  "Why conditions were invalid (they count zero above): the invalid answer " +
  "rows of each method by the kind of their reason, with the first such reason as its example.";

/** The Markdown section, or "" when every condition was valid. */
export function invalidReasonsMarkdown(reasons: readonly InvalidReason[] | undefined): string {
  if (!reasons || reasons.length === 0) return "";
  return `\n### Invalid conditions\n\n${INVALID_REASONS_NOTE}\n\n${
    markdownTable(INVALID_REASON_HEADERS, invalidReasonRows(reasons))
  }\n`;
}
