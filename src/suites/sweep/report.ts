/**
 * The sweep REPORT.md (N against fact score and repair pass rate, beside S and Full) and its uncertainty
 * sections, shared with report.html.
 * @module
 */
import {
  type AnsweringModels,
  mergeAnsweringModels,
  modelChangeNotice,
} from "../../core/answering_models.ts";
import { type Cell, markdownTable } from "../../core/markdown_table.ts";
import { engineMethodsText } from "../method_selection.ts";
import { SWEEP_METRICS, type SweepKindAggregate, sweepMetricsIn } from "./aggregate.ts";
import type { SweepRunOptions } from "./run_options.ts";
import type { SweepStats } from "./stats.ts";
import type { ExplorerData } from "../../report/explorer.ts";
import { costSection, type RunCost } from "../../analysis/cost.ts";
import { type SweepCeilingResult, sweepCeilingSection } from "./ceiling.ts";
import {
  formatInterval,
  formatP,
  groupedInteger,
  mostlyInvalidNote as mostlyInvalid,
  PAIRED_HEADERS,
  pairedCells,
} from "../../analysis/format.ts";
import {
  factsMarkdown,
  type Html,
  MARKDOWN,
  modelsFactIn,
  type ReportFormat,
  sectionMarkdown,
  type TableSection,
} from "../../report/html.ts";

/** "not a finding" when A's or B's answers were mostly invalid (counting zero); else empty. */
export function mostlyInvalidNote(stats: SweepStats, a: string, b: string): string {
  const share = (kind: string) => stats.kinds.find((k) => k.kind === kind)?.invalid ?? 0;
  return mostlyInvalid(share, a, b, "answers");
}

/** The `95% CI` and paired-differences sections (REPORT.md and report.html). */
export function sweepStatsSections(stats: SweepStats): TableSection[] {
  const metrics = sweepMetricsIn("intervals");
  const note = `95% CI: percentile bootstrap over the ${stats.generations} generation(s) (the unit: each ` +
    `generation's answers are averaged first, so answers of one generation, which share its compressed context, ` +
    `are not treated as independent), ${
      groupedInteger(stats.resamples)
    } resamples, seed ${stats.seed}. With ` +
    `few generations the intervals are coarse; they are zero-width when every generation gives the same ` +
    `number. Paired differences compare contexts on the same generations (B − A, percentage points, ` +
    `two-sided sign-flip p). Descriptive. A comparison in which A or B had more than half of its answers ` +
    `invalid (e.g. every context over the ceiling) is marked "not a finding": invalid answers count zero.`;
  const intervalRows = stats.kinds.map((k) => [
    k.kind,
    ...metrics.map((m) => formatInterval(k.intervals[m.name])),
    k.intervals.fact_score.n,
  ]);
  const pairedRows = stats.paired.map((p) => [
    ...pairedCells(p, SWEEP_METRICS.find((m) => m.name === p.metric)?.label ?? p.metric),
    formatP(p.p),
    mostlyInvalidNote(stats, p.a, p.b),
  ]);
  const headers = ["context", ...metrics.map((m) => `${m.label} (95% CI)`), "generations"];
  return [
    { level: 3, heading: "95% CI", note, headers, rows: intervalRows },
    { level: 3, heading: "Paired differences", headers: [...PAIRED_HEADERS, "note"], rows: pairedRows },
  ];
}

/** What the report states besides the aggregates. */
export interface SweepReportMeta {
  fixture: { name: string; hash: string; units: number; facts: number };
  models: { mode: string; chat_model: string; decision_model: string; note: string };
  tokenizer: string;
  options: SweepRunOptions;
  compressionUsage: { calls: number; input_tokens: number; output_tokens: number };
  reusedCompression: number;
  frozenRun?: string;
  /** Each absent when the run has none: engines, intervals, explorer, cost (no price), ceiling sweep. */
  engines?: { name: string; spec: string; deterministic: boolean }[];
  stats?: SweepStats;
  explorer?: ExplorerData;
  cost?: RunCost;
  ceilings?: SweepCeilingResult[];
}

/** The run facts both reports list, in REPORT.md's or report.html's format. */
export function sweepFacts(f: ReportFormat, meta: SweepReportMeta, answering: AnsweringModels): Html[] {
  const o = meta.options;
  const u = meta.compressionUsage;
  // The ceiling(s) in words: `ceiling 3800 tokens` or `ceilings 2400, 3800 tokens (main tables: 3800)`.
  const ceilings = o.inputCaps
    ? `ceilings ${o.inputCaps.join(", ")} tokens (main tables: ${o.inputCap})`
    : `ceiling ${o.inputCap} tokens`;
  return [
    f.text`Trajectory: ${meta.fixture.name} (sha256 ${
      f.code(meta.fixture.hash)
    }), ${meta.fixture.units} evidence units,${f.br}${meta.fixture.facts} exact facts, 6 executable repair checks (sandboxed)`,
    f.text`Models: ${modelsFactIn(f, meta.models, answering)} (${meta.models.note})`,
    f.text`Tokenizer: ${meta.tokenizer}`,
    f.text`${o.compressions} generation(s) of (summary S within a ${o.summaryAllowance}-token complete input, ranking);${f.br}Top N for N = ${
      o.topN.join(", ")
    }; ${ceilings} (reserve ${o.reserve}); ${o.answers} answer(s)${f.br}per context at temperature 0`,
    f.text`Compression calls: ${u.calls} (input ${u.input_tokens}, output${f.br}${u.output_tokens} tokens); ${meta.reusedCompression} summary/ranking node(s) reused${
      meta.frozenRun ? ` from ${meta.frozenRun}` : ""
    }`,
    ...(meta.engines ? [f.text`${engineMethodsText(meta.engines)}`] : []),
  ];
}

/** Column names of the sweep table (REPORT.md and report.html): the table's metrics, then counts. */
export function sweepTableHeaders(): string[] {
  return [
    "context",
    ...sweepMetricsIn("table").map((m) => m.label),
    "valid/planned",
    "over budget",
    "context tokens mean",
    "input tokens mean",
    "input tokens total",
  ];
}

/** The cells of the sweep table, one row per context kind (percentages with one decimal). */
export function sweepTableRows(aggregates: readonly SweepKindAggregate[]): Cell[][] {
  return aggregates.map((a) => [
    a.kind,
    ...sweepMetricsIn("table").map((m) => Number((100 * (m.aggregate(a) ?? 0)).toFixed(1))),
    `${a.valid}/${a.planned}`,
    a.over_budget,
    a.context_tokens_mean === null ? null : Math.round(a.context_tokens_mean),
    a.input_tokens.mean === null ? null : Math.round(a.input_tokens.mean),
    a.input_tokens.total,
  ]);
}

/** Renders REPORT.md. */
export function sweepReportMarkdown(
  aggregates: readonly SweepKindAggregate[],
  meta: SweepReportMeta,
): string {
  const o = meta.options;

  const reference = meta.models.mode === "reference"
    ? `\n> **Reference model.** These numbers come from the built-in deterministic reference model, an honest but ` +
      `weak extractive baseline. They show the harness works end to end; they say nothing about any real LLM.\n`
    : "";
  const answering = mergeAnsweringModels(aggregates.map((a) => a.models));
  const changed = modelChangeNotice(answering);
  const notice = changed ? `\n> **Answering model changed.** ${changed}\n` : "";
  return `# sweep: frozen summary + Jev Top-N
${notice}${reference}
${factsMarkdown(sweepFacts(MARKDOWN, meta, answering))}

## Results${o.inputCaps ? ` at the ${o.inputCap}-token ceiling` : ""}

${
    o.inputCaps
      ? "The other ceilings: see the ceiling sweep below.\n\n"
      : ""
  }Fact score: the mean of ten strict fact checks per answer. Repair pass: the share of answers whose repair
passes all six checks. Answers are averaged within a generation, then generations equally; over-budget
contexts are recorded, never shrunk, and count zero — except \`full\`, the original history, which may exceed the
ceiling and is always answered and scored.

${markdownTable(sweepTableHeaders(), sweepTableRows(aggregates), 1)}
${meta.stats ? sweepStatsSections(meta.stats).map(sectionMarkdown).join("") : ""}${
    meta.ceilings ? sectionMarkdown(sweepCeilingSection(meta.ceilings)) : ""
  }${meta.cost ? sectionMarkdown(costSection(meta.cost)) : ""}`;
}
