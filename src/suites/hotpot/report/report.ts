/**
 * The hotpot REPORT.md (results, counts, usage, the hypothesis stated descriptively) and what the reports
 * and the terminal share: the hypothesis verdict (on exact rationals), warnings, protocol, invalid
 * conditions, uncertainty (intervals, paired differences), ceiling sweep.
 * @module
 */
import { type Cell, markdownTable } from "../../../core/markdown_table.ts";
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import { hotpotMetric, hotpotMetricsIn } from "../run/metrics.ts";
import {
  type AnsweringModels,
  mergeAnsweringModels,
  modelChangeNotice,
} from "../../../core/answering_models.ts";
import type { ReportCorpus } from "../question_card.ts";
import type { HotpotStats } from "./stats.ts";
import type { ExplorerData, PackedExplorer } from "../../../report/explorer.ts";
import { costSection, type RunCost } from "../../../analysis/cost.ts";
import { engineMethodsText } from "../../method_selection.ts";
import type { HotpotRowCore } from "../run/stages/rows.ts";
import {
  formatDifference,
  formatInterval,
  formatP,
  formatPoints,
  groupedInteger,
  MOSTLY_INVALID_SHARE,
  mostlyInvalidNote,
  PAIRED_HEADERS,
  pairedCells,
} from "../../../analysis/format.ts";
import { frontierChart } from "../../../report/frontier_chart.ts";
import {
  factsMarkdown,
  figure,
  type Html,
  MARKDOWN,
  modelsFactIn,
  type ReportFormat,
  safeHtml,
  sectionHtml,
  sectionMarkdown,
  type TableSection,
} from "../../../report/html.ts";
import { Rational } from "../run/exact_mean.ts";

/** What the warnings need of a method's aggregate. */
export interface HeadlineInput extends HypothesisInput {
  valid: number;
  planned: number;
  over_cap: number;
}

/** A rational share as a percentage with one decimal, for display (the verdict never uses it). */
const points = (x: Rational) => (100 * x.toNumber()).toFixed(1);

/** Jev+Summary's place beside Full, from the exact gap: `3.0${unit} below Full` or `… above Full`. */
const relation = (gap: Rational, unit: string) =>
  gap.compare(new Rational(0n)) >= 0
    ? `${points(gap)}${unit} below Full`
    : `${points(new Rational(0n).sub(gap))}${unit} above Full`;

/**
 * The verdict in lines that fit 80 columns: the claim, the four EMs with the gap to Full, the verdict last.
 *
 * @example
 * ```ts
 * hypothesisLines([{ method: "full", em_exact: "4/5" }]).at(-1); // "  verdict: not evaluated (…)"
 * ```
 */
export function hypothesisLines(aggregates: readonly HypothesisInput[]): string[] {
  const claim = "hypothesis: Jev+Summary beats Jev and Summary in EM, within 5 points of Full";
  const v = hypothesisVerdict(aggregates);
  if (v === null) return [claim, "  verdict: not evaluated (the run did not include all four methods)"];
  const failed = [...(v.beats ? [] : ["does not beat both"]), ...(v.within ? [] : ["> 5 below Full"])];
  return [
    claim,
    `  EM: Jev+Summary ${points(v.em.fusion)}, Jev ${points(v.em.jev)}, Summary ${points(v.em.summary)}, ` +
    `Full ${points(v.em.full)}; ${relation(v.gap, "")}`,
    `  verdict (descriptive): ${v.holds ? "holds" : `does not hold (${failed.join("; ")})`}`,
  ];
}

/** The warnings heading the reports and terminal: a ceiling that did not bind, mostly invalid methods. */
export function hotpotWarnings(
  aggregates: readonly HeadlineInput[],
  questions: number | null,
  inputCap: number,
): string[] {
  const out: string[] = [];
  const full = aggregates.find((a) => a.method === "full");
  if (full !== undefined && questions !== null && questions > 0) {
    const under = Math.max(0, questions - full.over_cap);
    if (under > questions / 2) {
      out.push(
        `The ceiling did not bind for ${under} of ${questions} questions: their Full context fits within ` +
          `${inputCap} tokens, so they needed no compaction and the methods' differences there test nothing ` +
          `(raise --min-chars or lower --input-cap).`,
      );
    }
  }
  for (const a of aggregates) {
    if (a.planned > 0 && (a.planned - a.valid) / a.planned > MOSTLY_INVALID_SHARE) {
      out.push(
        `Most conditions of ${a.method} were invalid (${
          a.planned - a.valid
        } of ${a.planned}): they count zero, ` +
          `so its figures measure the failures, not the method (not a finding).`,
      );
    }
  }
  return out;
}

/** What the verdict needs of a method's aggregate. */
export interface HypothesisInput {
  method: string;
  em_exact: string;
}

/** Decides the hypothesis (null when one of the four methods is missing); `gap`: Full − Jev+Summary, exactly. */
export function hypothesisVerdict(aggregates: readonly HypothesisInput[]) {
  const em = (m: string) => {
    const a = aggregates.find((x) => x.method === m);
    return a === undefined ? undefined : Rational.parse(a.em_exact);
  };
  const fusion = em("jev+summary");
  const jev = em("jev");
  const summary = em("summary");
  const full = em("full");
  if (!fusion || !jev || !summary || !full) return null;
  const beats = fusion.compare(jev) > 0 && fusion.compare(summary) > 0;
  const gap = full.sub(fusion);
  const within = gap.compare(new Rational(5n, 100n)) <= 0; // "within 5 points", compared exactly
  return { beats, within, holds: beats && within, gap, em: { fusion, jev, summary, full } };
}

/** The hypothesis paragraph of the reports. */
export function hypothesisVerdictText(aggregates: readonly HypothesisInput[]): string {
  const claim =
    "Predeclared hypothesis: Jev+Summary exceeds both compressed baselines (Jev, Summary) in answer " +
    "EM and is within 5 points of Full.";
  const v = hypothesisVerdict(aggregates);
  if (v === null) return `${claim}\n\nNot evaluated: this run did not include all four methods.`;
  const observed = `Observed EM: Jev+Summary ${points(v.em.fusion)}, Jev ${points(v.em.jev)}, ` +
    `Summary ${points(v.em.summary)}, Full ${points(v.em.full)}.`;
  const comparison =
    `Jev+Summary ${v.beats ? "exceeds" : "does not exceed"} both compressed baselines and is ` +
    `${relation(v.gap, " points")} (${
      v.within ? "within" : "not within"
    } 5 points of it; compared exactly: Full − Jev+Summary = ` +
    `${v.gap}).`;
  const verdict = v.holds
    ? "The observed numbers agree with it"
    : "The observed numbers do not agree with it";
  return `${claim}\n\n${observed} ${comparison} ${verdict} (descriptive only: no significance test).`;
}

/** One ceiling's results (Full included in each, from the same answers). */
export interface CeilingResult {
  cap: number;
  aggregates: HotpotMethodAggregate[];
  stats: HotpotStats;
}

/** The table section of a ceiling sweep (report.html adds the frontier chart): Full once, then each
 * compressed method at each ceiling. */
export function ceilingSweepSection(results: readonly CeilingResult[]): TableSection {
  const rows: Cell[][] = [];
  const methods = [...new Set(results.flatMap((r) => r.aggregates.map((a) => a.method)))];
  for (const method of [...methods.filter((m) => m === "full"), ...methods.filter((m) => m !== "full")]) {
    for (const r of method === "full" ? results.slice(0, 1) : results) {
      const a = r.aggregates.find((x) => x.method === method);
      const ci = r.stats.methods.find((x) => x.method === method);
      if (!a || !ci) continue;
      const vsFull = r.stats.paired.find((p) => p.a === "full" && p.b === method && p.metric === "em");
      rows.push([
        method,
        method === "full" ? "none" : r.cap,
        formatInterval(ci.intervals.em),
        formatInterval(ci.intervals.f1),
        a.input_tokens.mean === null ? null : Math.round(a.input_tokens.mean),
        `${a.valid}/${a.planned}`,
        vsFull ? formatDifference({ mean: vsFull.mean_diff, lo: vsFull.lo, hi: vsFull.hi }) : "",
        vsFull ? formatP(vsFull.p) : "",
      ]);
    }
  }
  const note =
    `Ceilings ${results.map((r) => r.cap).join(", ")} tokens, in one run: rankings are shared by ` +
    `every ceiling; summaries, contexts and answers are per ceiling; Full is limited by no ceiling and answered ` +
    `once. EM and F1 in percent with 95% CIs (bootstrap over questions); "EM − Full" is the paired ` +
    `per-question difference at that ceiling. Input tokens are the provider's reported prompt tokens of the ` +
    `answer calls.`;
  const headers = [
    ...["method", "ceiling", "EM (95% CI)", "F1 (95% CI)", "input tok mean", "valid/planned"],
    ...["EM − Full (95% CI)", "p (sign-flip)"],
  ];
  return { level: 2, heading: "Ceiling sweep: quality against answer-input size", note, headers, rows };
}

const percent = (x: number) => 100 * x;

/** The section: heading, note, table and frontier chart. */
export function ceilingSweepHtml(results: readonly CeilingResult[]): Html {
  const methods = new Set(results.flatMap((r) => r.aggregates.map((a) => a.method)));
  methods.delete("full");
  const series = [...methods].map((method) => ({
    name: method,
    points: results.flatMap((r) => {
      const a = r.aggregates.find((x) => x.method === method);
      const ci = r.stats.methods.find((x) => x.method === method)?.intervals.em;
      return a && ci
        ? [{
          cap: r.cap,
          tokens: a.input_tokens.mean,
          em: percent(ci.mean),
          lo: percent(ci.lo),
          hi: percent(ci.hi),
        }]
        : [];
    }),
  }));
  const full = results[0]?.aggregates.find((a) => a.method === "full");
  const chart = frontierChart({
    title: "EM against mean answer-input tokens per method, one point per ceiling; Full as reference",
    series,
    reference: full && {
      label: `Full ${percent(full.metrics.em).toFixed(1)}${
        full.input_tokens.mean === null ? "" : ` (${Math.round(full.input_tokens.mean)} tok)`
      }`,
      em: percent(full.metrics.em),
      tokens: full.input_tokens.mean,
    },
  });
  return safeHtml`${sectionHtml(ceilingSweepSection(results))}
${figure("The quality/size frontier (error bars: 95% CI)", chart)}`;
}

/** Each method's share of planned conditions that were not valid, from its aggregate. */
export function invalidShares(
  aggregates: readonly Pick<HotpotMethodAggregate, "method" | "valid" | "planned">[],
): Map<string, number> {
  return new Map(aggregates.map((a) => [a.method, a.planned > 0 ? 1 - a.valid / a.planned : 0]));
}

/** The sentence about (Jev+Summary − Full) EM against the 5-point margin, or null when not computed. */
export function hypothesisInterval(stats: HotpotStats): string | null {
  const p = stats.paired.find((r) => r.a === "full" && r.b === "jev+summary" && r.metric === "em");
  if (!p) return null;
  const margin = -0.05;
  const where = p.lo >= margin
    ? "lies entirely above −5 points: consistent with being within 5 points of Full"
    : p.hi < margin
    ? "lies entirely below −5 points: more than 5 points below Full"
    : "includes −5 points: this run cannot tell whether Jev+Summary is within 5 points of Full";
  return `Jev+Summary − Full EM: ${formatDifference({ mean: p.mean_diff, lo: p.lo, hi: p.hi })} points ` +
    `(95% CI, ${p.n} paired questions, sign-flip p = ${formatP(p.p)}); the interval ${where}. ` +
    `This is descriptive, not a pre-registered non-inferiority test.`;
}

/**
 * The `95% CI` and paired-differences sections; `invalid`: each method's share of invalid conditions (a side
 * mostly invalid marks its comparisons "not a finding", in a note column when any is).
 */
export function hotpotStatsSections(
  stats: HotpotStats,
  invalid: ReadonlyMap<string, number>,
): TableSection[] {
  const metrics = hotpotMetricsIn("intervals");
  const resamples = groupedInteger(stats.resamples);
  const intervalNote = `95% CI: percentile bootstrap over the ${stats.questions} questions (the unit: each ` +
    `question's answers over generations × answers are averaged first, invalid conditions count zero), ` +
    `${resamples} resamples, seed \`${stats.seed}\`. Percentages.`;
  const pairedNote =
    `Paired per-question differences B − A in percentage points over the same questions: the ` +
    `mean with a 95% bootstrap CI (${resamples} resamples), a two-sided paired sign-flip ` +
    `permutation p-value (exact over all sign vectors when at most ${stats.exact_limit} questions differ, ` +
    `otherwise seeded Monte Carlo, marked MC), and MDE 80%: the smallest mean difference this run could ` +
    `detect at 80% power, two-sided α = 0.05, from the per-question variance of the differences ` +
    `(normal approximation: 2.80 × sd / √pairs). No correction for multiple comparisons; descriptive.`;
  const intervalRows = stats.methods.map((m) => [
    m.method,
    ...metrics.map((metric) => formatInterval(m.intervals[metric.name])),
    m.intervals.em.n,
  ]);
  const notes = stats.paired.map((p) =>
    mostlyInvalidNote((m) => invalid.get(m) ?? 0, p.a, p.b, "conditions")
  );
  const noted = notes.some((note) => note !== "");
  const pairedRows = stats.paired.map((p, i) => [
    ...pairedCells(p, hotpotMetric(p.metric)?.label ?? p.metric),
    `${formatP(p.p)}${p.p_method === "exact" ? "" : " (MC)"}`,
    p.mde80 === null ? null : formatPoints(p.mde80),
    ...(noted ? [notes[i]] : []),
  ]);
  const intervalHeaders = ["method", ...metrics.map((m) => `${m.label} (95% CI)`), "questions"];
  const pairedHeaders = [...PAIRED_HEADERS, "MDE 80%", ...(noted ? ["note"] : [])];
  return [
    { level: 3, heading: "95% CI", note: intervalNote, headers: intervalHeaders, rows: intervalRows },
    { level: 3, heading: "Paired differences", note: pairedNote, headers: pairedHeaders, rows: pairedRows },
  ];
}

/** The descriptive hypothesis text, followed by the interval sentence when intervals were computed. */
export function hypothesisWithInterval(text: string, stats: HotpotStats | undefined): string {
  const extra = stats ? hypothesisInterval(stats) : null;
  if (!extra) return text;
  // The verdict compares point estimates; with intervals the report adds their reading, still descriptive.
  const verdict = text.replace(
    "(descriptive only: no significance test)",
    "(descriptive: the verdict compares point estimates)",
  );
  return `${verdict}\n\n${extra}`;
}

/** What the report states about the run besides the aggregates (an absent part: the run has none). */
export interface HotpotReportMeta {
  corpus: ReportCorpus;
  models: { mode: string; chat_model: string; decision_model: string; note: string };
  tokenizer: string;
  inputCap: number;
  reserve: number;
  compressions: number;
  answers: number;
  stats?: HotpotStats;
  explorer?: ExplorerData | PackedExplorer;
  cost?: RunCost;
  ceilings?: CeilingResult[];
  invalidReasons?: InvalidReason[];
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

/** The fact saying for how many questions the ceiling did not bind Full (empty: no Full). */
export function ceilingBindText(
  aggregates: readonly HotpotMethodAggregate[],
  questions: number,
  inputCap: number,
): string {
  const full = aggregates.find((a) => a.method === "full");
  if (full === undefined || questions === 0) return "";
  const under = Math.max(0, questions - full.over_cap);
  return `Ceiling: the ceiling did not bind for ${under} of ${questions} questions (their Full context is ` +
    `within ${inputCap} tokens, so they needed no compaction)${
      under === questions
        ? "; compaction was not needed for any question: raise --min-chars or lower --input-cap"
        : ""
    }`;
}

/** The run facts both reports list, in REPORT.md's or report.html's format. */
export function hotpotFacts(
  f: ReportFormat,
  meta: HotpotReportMeta,
  aggregates: readonly HotpotMethodAggregate[],
  answering: AnsweringModels,
): Html[] {
  const c = meta.corpus;
  const p = c.protocol;
  const invalid = c.questions.filter((q) => !q.valid);
  const valid = c.questions.length - invalid.length;
  const removed = Object.entries(c.selection.removed).map(([k, v]) => `${k}: ${v}`).join(", ");
  const unverifiable = filesUnchangedText(c);
  // REPORT.md lists the invalid questions under the item (a blank line when none); report.html nests them.
  const invalidList = f.markdown
    ? `\n${invalid.map((q) => `  - ${q.id}: ${q.reason}`).join("\n")}`
    : invalid.length > 0
    ? safeHtml`<ul>${invalid.map((q) => safeHtml`<li>${q.id}: ${q.reason ?? "invalid"}</li>`)}</ul>`
    : "";
  const ceiling = ceilingBindText(aggregates, valid, meta.inputCap);
  return [
    f.text`Dataset: ${f.code(c.dataset.path)} (sha256 ${
      f.code(c.dataset.sha256)
    }, ${c.dataset.records} records)`,
    f.text`Selection: seed ${p.seed}, ${p.bridge} bridge + ${p.comparison} comparison,${f.br}${p.min_chars}–${p.max_chars} evidence characters; considered ${c.selection.considered}; removed${f.br}by filter: ${
      f.markdown ? removed : removed || "none"
    }`,
    f.text`Collection: ${collectionModeText(c)}; ${valid}/${c.questions.length} valid${
      unverifiable ? `; ${unverifiable}` : ""
    }${invalidList}`,
    f.text`Models: ${modelsFactIn(f, meta.models, answering)} (${meta.models.note})`,
    f.text`Tokenizer: ${meta.tokenizer}; ceiling ${meta.inputCap} tokens (reserve ${meta.reserve}) on the complete answer input`,
    ...(ceiling ? [f.text`${ceiling}`] : []),
    f.text`Repeats: ${meta.compressions} compression generation(s) × ${meta.answers} answer(s) per question and method`,
    ...(meta.engines ? [f.text`${engineMethodsText(meta.engines)}`] : []),
  ];
}

/** Renders REPORT.md. */
export function hotpotReportMarkdown(
  aggregates: readonly HotpotMethodAggregate[],
  meta: HotpotReportMeta,
): string {
  const c = meta.corpus;
  const valid = c.questions.filter((q) => q.valid).length;
  const reference = meta.models.mode === "reference"
    ? `\n> **Reference model.** These numbers come from the built-in deterministic reference model, an honest but ` +
      `weak extractive baseline (BM25 relevance, extractive summaries and answers). It never sees gold labels. ` +
      `They show the harness works end to end; they say nothing about any real LLM.\n`
    : "";
  const answering = mergeAnsweringModels(aggregates.map((a) => a.models));
  const changed = modelChangeNotice(answering);
  const notice = changed ? `\n> **Answering model changed.** ${changed}\n` : "";
  const warnings = hotpotWarnings(aggregates, valid, meta.inputCap)
    .map((w) => `\n> **Warning.** ${w}\n`).join("");
  const prompts = distinctSystemPrompts(c).map((p) =>
    `- \`${p.sha256}\` (${p.questions} question(s)):\n\n  > ${p.text.replace(/\n/g, "\n  > ")}`
  ).join("\n");
  return `# ${hotpotReportTitle(c, meta.inputCap, meta.ceilings?.map((x) => x.cap))}
${warnings}${notice}${reference}
${factsMarkdown(hotpotFacts(MARKDOWN, meta, aggregates, answering))}

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

${markdownTable(hotpotResultHeaders(), hotpotResultRows(aggregates), 1)}
${
    [
      ...invalidReasonsSections(meta.invalidReasons),
      ...(meta.stats ? hotpotStatsSections(meta.stats, invalidShares(aggregates)) : []),
      ...(meta.ceilings ? [ceilingSweepSection(meta.ceilings)] : []),
    ].map(sectionMarkdown).join("")
  }
### EM by question type

${markdownTable(...byTypeTable(aggregates), 1)}

## Compression usage

${markdownTable(...usageTable(aggregates))}

(Calls made by this run: nodes reused from a frozen run were paid for there. Rankings are shared by Jev and
Jev+Summary within a generation and counted in both rows.)
${meta.cost ? sectionMarkdown(costSection(meta.cost)) : ""}
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
  const prompts = corpus.questions.flatMap((q) => q.system_prompt ? [q.system_prompt] : []);
  return [...Map.groupBy(prompts, (p) => p.sha256)]
    .map(([sha256, same]) => ({ sha256, text: same[0].text, questions: same.length }))
    .sort((a, b) => a.sha256.localeCompare(b.sha256));
}

/** One kind of reason for one method: its invalid rows of the method's `planned`, the first reason whole. */
export interface InvalidReason {
  method: string;
  kind: string;
  count: number;
  planned: number;
  example: string;
}

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
  return [...Map.groupBy(rows, (row) => row.method)].flatMap(([method, mine]) => {
    const kinds = new Map<string, InvalidReason>();
    for (const row of mine) {
      if (row.status === "ok") continue;
      const reason = row.reason ?? "no reason given";
      const kind = reasonKind(reason);
      const entry = kinds.get(kind) ?? { method, kind, count: 0, planned: mine.length, example: reason };
      entry.count++;
      kinds.set(kind, entry);
    }
    return [...kinds.values()].sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
  });
}

/** The invalid-conditions section, or none when every condition was valid. */
export function invalidReasonsSections(reasons: readonly InvalidReason[] | undefined): TableSection[] {
  if (!reasons || reasons.length === 0) return [];
  const rows = reasons.map((r) => {
    // One line whatever a reason holds (a provider's error text may span lines).
    const example = r.example.replace(/\s+/g, " ");
    return [
      r.method,
      `${r.count}/${r.planned}`,
      r.kind.replace(/\s+/g, " "),
      example.length > EXAMPLE_CHARS ? `${example.slice(0, EXAMPLE_CHARS)}…` : example,
    ];
  });
  const note = "Why conditions were invalid (they count zero above): the invalid answer " +
    "rows of each method by the kind of their reason, with the first such reason as its example.";
  const headers = ["method", "invalid answers", "reason", "example"];
  return [{ level: 3, heading: "Invalid conditions", note, headers, rows }];
}
