/**
 * Presenting engine results: the plain-text table for stdout, REPORT.md's section, and the tables and notes
 * report.html shares with it.
 * @module
 */
import { type AnsweringModels, modelChangeNotice } from "../../core/answering_models.ts";
import { factsMarkdown, type Html, MARKDOWN, modelsFactIn, type ReportFormat } from "../../report/html.ts";
import { markdownSafe, terminalSafe } from "../../core/printable.ts";
import type { EngineResult } from "./run.ts";
import { type EnginesStats, enginesStats, enginesStatsMarkdown } from "./stats.ts";
import type { ExplorerData } from "../../report/explorer.ts";
import { LOCOMO_NOTE, locomoTables } from "./locomo_report.ts";

/** What the Markdown report says about the run besides the results. */
export interface EnginesReportMeta {
  /** E.g. "generated (turns 200, needles 12, words 60)" or a file path. */
  transcript: string;
  transcriptHash: string;
  tokenizer: string;
  chatModel?: string;
  decisionModel?: string;
  /** The models that answered the run's calls (absent: only the requested names are shown). */
  answering?: AnsweringModels;
  /** The offline reference model (labelled as a weak baseline). */
  reference?: boolean;
  repeats: number;
  /** Default: the results' own, in first-seen order. */
  budgets?: { budget: string; budget_tokens: number }[];
  /** Default: see {@link statsOf}. */
  stats?: EnginesStats;
  /** report.html's per-needle/probe explorer. */
  explorer?: ExplorerData;
}

/** How the tables name an engine: labelled when a reimplementation, with its library when a library's. */
export function engineLabel(
  r: Pick<EngineResult, "engine" | "kind" | "conversation"> & { library?: string | null },
): string {
  const name = r.kind === "reimplementation"
    ? `${r.engine} (reimplementation)`
    : r.library
    ? `${r.engine} (${r.library})`
    : r.engine;
  return r.conversation ? `${name} [${conversationLabel(r.conversation)}]` : name;
}

/** A conversation of a --sample run as labels name it: its file id and index, or its index. */
export function conversationLabel(c: { sample: number; sample_id: string | null }): string {
  return c.sample_id !== null ? `${c.sample_id} #${c.sample}` : `#${c.sample}`;
}

/** The intervals a report shows: the given ones, or computed with the default resamples and seed. */
export function statsOf(results: readonly EngineResult[], meta?: EnginesReportMeta): EnginesStats {
  return meta?.stats ?? enginesStats(results.map((r) => ({ ...r, engine: engineLabel(r) })));
}

/** The budgets of a set of results, in first-seen order. */
export function budgetsOf(
  results: readonly EngineResult[],
  meta?: EnginesReportMeta,
): { budget: string; budget_tokens: number }[] {
  if (meta?.budgets && meta.budgets.length > 0) return meta.budgets;
  const seen = new Map<string, number>();
  for (const r of results) if (!seen.has(r.budget)) seen.set(r.budget, r.budget_tokens);
  return [...seen].map(([budget, budget_tokens]) => ({ budget, budget_tokens }));
}

function pct(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

/** Milliseconds as the tables print them. */
export function ms(value: number | null): string {
  return value === null ? "-" : value < 10 ? value.toFixed(2) : value.toFixed(0);
}

function num(value: number | null): string {
  return value === null ? "-" : String(value);
}

/** The status cell: `ok`, `failed`, or `skipped: <reason>`. */
export function statusCell(r: EngineResult): string {
  if (r.status !== "skipped") return r.status;
  const reason = r.reason ?? "";
  return `skipped: ${reason.length > 60 ? `${reason.slice(0, 59)}…` : reason}`;
}

/** The engine's own compress time: cold, warm median, warm p95 (`one-shot`: only its round trip is known). */
function compressCells(r: EngineResult): string[] {
  if (r.status === "ok" && r.timing === "one-shot") return ["one-shot", "one-shot", "one-shot"];
  // Rows before compress_ms have only the round trip (and no asterisk).
  const own = r.compress_ms ?? r.latency_ms;
  const retried = r.compress_ms !== undefined && r.latency_ms.cold_retried_attempts > 0;
  return [ms(own.cold) + (retried ? "*" : ""), ms(own.warm_median), ms(own.warm_p95)];
}

/** The cells of the engines table, one row per engine and budget (shared by text, Markdown and HTML). */
export function engineTableRows(results: readonly EngineResult[]): string[][] {
  return results.map((r) => {
    const measured = r.status === "ok";
    return [
      engineLabel(r),
      `${r.budget_tokens} (${r.budget})`,
      statusCell(r),
      String(r.input_tokens),
      num(r.output_tokens),
      r.savings_pct === null ? "-" : `${r.savings_pct.toFixed(1)}%`,
      r.within_budget === null ? "-" : r.within_budget ? "yes" : "no",
      num(r.messages_out),
      r.tool_pairing_valid === null ? "-" : r.tool_pairing_valid ? "valid" : "broken",
      measured ? pct(r.needles.recall) : "-",
      r.qa === null ? "n/a" : pct(r.qa.recall),
      r.probes === null ? "n/a" : pct(r.probes.recall),
      r.recovery?.qa ? pct(r.recovery.qa.recall) : "-",
      r.recovery?.probes ? pct(r.recovery.probes.recall) : "-",
      ...compressCells(r),
      ms(r.latency_ms.warm_median),
      ms(r.startup_ms ?? null),
      r.usage === null ? "-" : String(r.usage.calls),
    ];
  });
}

/** The engines table as report.html shows it: related columns joined so that it fits a 1,400-pixel window. */
export const ENGINE_HTML_TABLE_HEADER = [
  ...["engine", "budget", "status", "tokens in → out", "saved", "msgs out", "tool pairs", "needles", "QA"],
  ...["probes", "QA / probes +recovery", "compress ms: cold · warm median · p95"],
  ...["round trip ms (warm median) · start-up ms", "model calls"],
];

/** The rows of {@link ENGINE_HTML_TABLE_HEADER}, from {@link engineTableRows}' cells. */
export function engineHtmlTableRows(results: readonly EngineResult[]): string[][] {
  return engineTableRows(results).map((c) => [
    c[0],
    c[1],
    c[2],
    c[4] === "-" ? c[3] : `${c[3]} → ${c[4]}`,
    c[6] === "-" ? c[5] : `${c[5]} (${c[6] === "yes" ? "in budget" : "over budget"})`,
    c[7],
    c[8],
    c[9],
    c[10],
    c[11],
    c[12] === "-" && c[13] === "-" ? "-" : `${c[12]} / ${c[13]}`,
    c[14] === "one-shot" ? "one-shot" : `${c[14]} · ${c[15]} · ${c[16]}`,
    c[18] === "-" ? c[17] : `${c[17]} · ${c[18]}`,
    c[19],
  ]);
}

/** The column names of the engines table. */
export const ENGINE_TABLE_HEADER = [
  ...["engine", "budget", "status", "in tok", "out tok", "saved", "in budget", "msgs out", "tool pairs"],
  ...["needles", "QA", "probes", "QA +recovery", "probes +recovery", "compress cold ms"],
  ...["compress warm med ms", "compress p95 ms", "round trip ms", "start-up ms", "model calls"],
];

/** A plain-text table of the results, columns aligned, failures' and skips' reasons listed below. */
export function formatEnginesTable(results: EngineResult[]): string {
  // The plain table keeps the status column (2) narrow: a skip's reason is listed below.
  const rows = engineTableRows(results).map((row) => row.with(2, row[2].split(":")[0]));
  const table = [ENGINE_TABLE_HEADER, ...rows];
  const widths = ENGINE_TABLE_HEADER.map((_, c) => Math.max(...table.map((row) => row[c].length)));
  const lines = table.map((row) =>
    row.map((cell, c) => c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])).join("  ")
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const reasons = results.filter((r) => r.reason !== null).map((r) =>
    terminalSafe(`${r.engine}: ${r.status === "skipped" ? "skipped" : "failed"}: ${r.reason}`)
  );
  return [...lines, ...new Set(reasons)].join("\n");
}

/** The explanation under the engines table (shared by REPORT.md and report.html). */
export const ENGINES_TABLE_NOTE =
  "Tokens are counted with the model's chat template and tokenizer. *needles* is the share of planted " +
  "fact sentences found verbatim in the window (n/a without needles). *QA* is the share of needle " +
  "questions the chat model answered from the window alone (it is told to reply `NOT IN CONTEXT` " +
  "otherwise); *probes* is the share of the probes' expected facts found in the chat model's answers " +
  "(pooled over probes; per type below). Answers are matched without an LLM: reply and gold are " +
  "normalized as HotpotQA does (lowercase, punctuation and articles removed, whitespace folded) and a " +
  "fact counts when its words appear in the reply as one run of whole words (so `No` is not found in " +
  "`NOT IN CONTEXT`, nor `art` in `party`); a reply of `NOT IN CONTEXT` finds nothing. *compress ms* is " +
  "the engine's own compress call: timed by this program around the call for in-process engines, and " +
  "inside the worker (a monotonic clock around the engine's call) for outside engines that speak the " +
  "worker protocol; the cold first call apart from the median and p95 (nearest rank) of the warm calls. " +
  "*round trip ms* is what this program saw per call (warm median; the request's JSON both ways " +
  "included) and *start-up ms* a worker's process start and imports, paid once. A one-shot outside " +
  "engine (one process per call) has only its round trip: one-shot: latency includes process start. " +
  "Warm calls whose model calls were retried are left out of the warm figures (their time includes " +
  "retry waits) and counted below; a cold figure marked with an asterisk includes retries. An engine " +
  "labelled *(reimplementation)* is this program's own rendering of another project's idea, not that " +
  "project; real competitors run through their adapters; an engine labelled with a library and its " +
  "version is that npm library's own compaction, run in-process with this program's chat model; a row " +
  "reading `skipped: …` was not measured.";

/** The heading of the method notes relating these columns to lean-ctx's own harness. */
export const ENGINES_PARITY_HEADING = "Method notes: these columns and lean-ctx's harness";

/** Column by column, how this program's measures relate to lean-ctx's benchmark (docs/PARITY.md). */
export const ENGINES_PARITY_NOTE =
  "Tokens are the answering model's real tokens (tokenizer and chat template), where lean-ctx's harness " +
  "counts len/4 + 1 per content and 4 per message without tiktoken (its 200-turn corpus: 50,294 of its " +
  "tokens, 31,420 Qwen tokens), so savings differ a little for the same window. A `ctx N` row tells " +
  "each engine the host's context length N as lean-ctx's harness does (the engine decides what to " +
  "keep); a budget row asks every engine for one target instead. *compress ms* is the engine's own " +
  "call, as lean-ctx's harness times it, but the cold call apart from the warm median (its figure " +
  "averages every call) and a fresh engine per call. *needles* is its verbatim recall (a fact's exact " +
  "text in the window; here tool-call arguments count too) and *msgs out* its output messages: on the " +
  "same input and context length both harnesses give the same window, messages and recall (held by a " +
  "test). See docs/PARITY.md.";

/** One `label: note` line per engine that meets the budget its own way, in first-seen order. */
export function engineNotes(results: readonly (EngineResult & { note?: string | null })[]): string[] {
  return [...new Set(results.filter((r) => r.note).map((r) => `${engineLabel(r)}: ${r.note}`))];
}

/** The heading of the notes of {@link engineNotes}. */
export const ENGINE_NOTES_HEADING = "How these engines meet the budget";

/** Rows of the recall-at-retained-tokens table: one per engine, one cell group per budget. */
export function budgetCurveRows(results: readonly EngineResult[], meta?: EnginesReportMeta): {
  header: string[];
  rows: string[][];
} {
  const budgets = budgetsOf(results, meta);
  const names = [...new Set(results.map((r) => engineLabel(r)))];
  const recovered = results.some((r) => r.recovery?.qa);
  const header = [
    "engine",
    ...budgets.map((b) =>
      `${b.budget_tokens} (${b.budget}): kept / needles / QA${recovered ? " / QA +recovery" : ""}`
    ),
  ];
  const rows = names.map((name) => [
    name,
    ...budgets.map((b) => {
      const r = results.find((x) => engineLabel(x) === name && x.budget === b.budget);
      if (r === undefined) return "-";
      if (r.status !== "ok") return r.status;
      return `${num(r.output_tokens)} / ${pct(r.needles.recall)} / ${
        r.qa === null ? "n/a" : pct(r.qa.recall)
      }${recovered ? ` / ${r.recovery?.qa ? pct(r.recovery.qa.recall) : "-"}` : ""}`;
    }),
  ]);
  return { header, rows };
}

/** The explanation of the recovery table (shared by REPORT.md and report.html). */
export const RECOVERY_NOTE =
  "Engines that offer recall tools over what they compacted get every QA and probe question twice: from " +
  "the window alone, and *+recovery*, the same prompt with the engine's tools offered (served by the " +
  "instance that compacted), up to the given tool rounds per question and then once more without tools " +
  "for the answer. Both are matched the same way. *extra in tok* is the recovery arm's input tokens " +
  "beyond the window-alone arm's (the tool results and the repeated window).";

/** Rows of the recovery table (engines that offered recall tools), or null when none did. */
export function recoveryRows(
  results: readonly EngineResult[],
): { header: string[]; rows: string[][] } | null {
  const withTools = results.filter((r) => r.recovery);
  if (withTools.length === 0) return null;
  const header = [
    ...["engine", "budget", "tools", "rounds", "QA", "QA +recovery", "probes", "probes +recovery"],
    ...["tool calls (errors)", "recovery in tok", "extra in tok"],
  ];
  const rows = withTools.map((r) => {
    const rec = r.recovery!;
    return [
      engineLabel(r),
      r.budget,
      rec.tools.join(", "),
      String(rec.rounds),
      r.qa === null ? "n/a" : pct(r.qa.recall),
      rec.qa ? pct(rec.qa.recall) : "n/a",
      r.probes === null ? "n/a" : pct(r.probes.recall),
      rec.probes ? pct(rec.probes.recall) : "n/a",
      `${rec.tool_calls} (${rec.tool_errors})`,
      String(rec.usage.input_tokens),
      String(rec.extra_input_tokens),
    ];
  });
  return { header, rows };
}

/** Rows of the probe recall per type table (engines with probe answers only). */
export function probeTypeRows(
  results: readonly EngineResult[],
): { header: string[]; rows: string[][] } | null {
  const types = [...new Set(results.flatMap((r) => Object.keys(r.probes?.by_type ?? {})))].sort();
  if (types.length === 0) return null;
  const header = ["engine", "budget", ...types, "overall"];
  const rows = results.filter((r) => r.probes !== null).map((r) => [
    engineLabel(r),
    r.budget,
    ...types.map((t) => {
      const group = r.probes!.by_type[t];
      return group === undefined ? "-" : `${pct(group.recall)} (${group.found}/${group.facts})`;
    }),
    `${pct(r.probes!.recall)} (${r.probes!.facts_found}/${r.probes!.facts_total})`,
  ]);
  return { header, rows };
}

function markdownTable(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.map(markdownSafe).join(" | ")} |`,
    `| ${header.map((_, i) => i === 0 ? "---" : "---:").join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(markdownSafe).join(" | ")} |`),
  ];
}

/** The Failures and Skipped lists (those with rows): per row its engine, budget and what happened. */
export function problemLists(
  results: readonly EngineResult[],
): [string, { engine: string; budget: string; text: string }[]][] {
  const failed = results.filter((r) => r.status === "failed" && r.reason !== null);
  const skipped = results.filter((r) => r.status === "skipped");
  return ([["Failures", failed, ""], ["Skipped", skipped, "skipped: "]] as const)
    .filter(([, rows]) => rows.length > 0)
    .map(([heading, rows, prefix]) => [
      heading,
      rows.map((r) => ({ engine: r.engine, budget: r.budget, text: prefix + (r.reason ?? "") })),
    ]);
}

/** How questions are asked (protocol.json's `questions_per_prompt`: it moves recall by about ten points). */
export const QUESTIONS_PER_PROMPT_NOTE =
  "Questions: one per prompt (the compacted window, then one question; " +
  "needle QA, probes and LoCoMo QA alike), so no answer leans on another question.";

/** The title of an engines run's REPORT.md and report.html. */
export const ENGINES_REPORT_TITLE = "engines: context engines head to head";

/** The run facts both reports list, in REPORT.md's or report.html's format. */
export function enginesFacts(
  f: ReportFormat,
  results: readonly EngineResult[],
  meta: EnginesReportMeta,
): Html[] {
  const first = results[0];
  const budgets = budgetsOf(results, meta);
  const items = [
    f.text`Transcript: ${meta.transcript} — ${first?.messages_in ?? 0} messages, ${
      first?.input_tokens ?? 0
    } tokens (${meta.tokenizer}), hash ${f.code(meta.transcriptHash)}`,
    f.text`Budget${budgets.length > 1 ? "s" : ""}: ${
      budgets.length === 0 ? "-" : budgets.map((b) => `${b.budget_tokens} tokens (${b.budget})`).join(", ")
    }; ${meta.repeats} warm repeats after one cold call per engine`,
  ];
  if (meta.answering && meta.chatModel && meta.decisionModel) {
    const requested = { chat_model: meta.chatModel, decision_model: meta.decisionModel };
    items.push(f.text`Models: ${modelsFactIn(f, requested, meta.answering)}`);
  } else {
    // REPORT.md names them plainly.
    const name = (model: string) => f.markdown ? model : f.code(model);
    if (meta.chatModel) items.push(f.text`Chat model: ${name(meta.chatModel)}`);
    if (meta.decisionModel) items.push(f.text`Decision model: ${name(meta.decisionModel)}`);
  }
  const reference =
    "Models: the offline **reference model** (deterministic, extractive): a weak but honest " +
    "baseline, not a measure of any real LLM.";
  if (meta.reference && f.markdown) items.push(f.text`${reference}`);
  return [...items, f.text`${QUESTIONS_PER_PROMPT_NOTE}`];
}

/** The engines section of REPORT.md. */
export function enginesReportMarkdown(results: EngineResult[], meta: EnginesReportMeta): string {
  const changed = meta.answering && meta.chatModel && meta.decisionModel
    ? modelChangeNotice(meta.answering)
    : null;
  const lines = [
    `# ${ENGINES_REPORT_TITLE}`,
    "",
    ...(changed ? [`> **Answering model changed.** ${changed}`, ""] : []),
    "## Engines",
    "",
    factsMarkdown(enginesFacts(MARKDOWN, results, meta)),
    "",
    ...markdownTable(ENGINE_TABLE_HEADER, engineTableRows(results)),
  ];
  /** A `###` section: each part after a blank line (a list of lines is one part). */
  const section = (heading: string, ...parts: (string | string[])[]) =>
    lines.push(
      "",
      `### ${heading}`,
      ...parts.flatMap((part) => ["", ...(Array.isArray(part) ? part : [part])]),
    );
  lines.push("", ENGINES_TABLE_NOTE);
  section(ENGINES_PARITY_HEADING, ENGINES_PARITY_NOTE);
  const notes = engineNotes(results);
  if (notes.length > 0) section(ENGINE_NOTES_HEADING, notes.map((note) => `- ${markdownSafe(note)}`));
  const retried = results.filter((r) => r.latency_ms.warm_excluded_retried > 0);
  if (retried.length > 0) {
    const counts = retried.map((r) =>
      `${engineLabel(r)} at ${r.budget}: ${r.latency_ms.warm_excluded_retried}`
    );
    lines.push("", `Warm calls left out for retries: ${counts.join("; ")}.`);
  }
  if (budgetsOf(results, meta).length > 1) {
    const curve = budgetCurveRows(results, meta);
    section(
      "Recall at retained tokens",
      "Every engine at every budget: tokens kept in the window / verbatim needle recall / QA recall.",
      markdownTable(curve.header, curve.rows),
    );
  }
  const recovery = recoveryRows(results);
  if (recovery !== null) {
    section("Recall with recovery", RECOVERY_NOTE, markdownTable(recovery.header, recovery.rows));
  }
  const byType = probeTypeRows(results);
  if (byType !== null) {
    section(
      "Probe recall per type",
      "Share of expected facts found in the chat model's answers, per probe type (found/expected; LLM-free " +
        "matching as above).",
      markdownTable(byType.header, byType.rows),
    );
  }
  const stats = statsOf(results, meta);
  if (stats.locomo) {
    const t = locomoTables(stats.locomo);
    const tables = [
      markdownTable(t.header, t.rows),
      "Pooled over conversations:",
      markdownTable(t.pooledHeader, t.pooled),
    ];
    section("LoCoMo QA (answer F1)", LOCOMO_NOTE, ...tables);
  }
  lines.push(enginesStatsMarkdown(stats).trimEnd().replace("## 95% CI", "### 95% CI"));
  for (const [heading, rows] of problemLists(results)) {
    section(
      heading,
      rows.map((p) => `- \`${markdownSafe(p.engine)}\` at ${p.budget}: ${markdownSafe(p.text)}`),
    );
  }
  return lines.join("\n") + "\n";
}
