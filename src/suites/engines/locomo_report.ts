/**
 * LoCoMo QA in the engines report: every row's answer F1 and, per engine and budget, the F1 pooled over the
 * conversations of a `--sample` run, each with a 95% bootstrap CI over questions.
 * @module
 */
import { bootstrapMean, type Interval } from "../../analysis/bootstrap.ts";
import { formatInterval } from "../../analysis/format.ts";
import type { QaSummary } from "./run.ts";
import { mean } from "./metrics.ts";

/** The fields of an engine row this module reads. */
export interface LocomoRowLike {
  engine: string;
  budget?: string;
  status: string;
  /** The pooled group's name, when it differs from `engine`. */
  group?: string;
  probes?: Pick<QaSummary, "f1" | "by_type" | "answers"> | null;
  recovery?: { probes: Pick<QaSummary, "f1" | "answers"> | null } | null;
}

/** LoCoMo F1 of one row or one pooled group. */
export interface LocomoF1Entry {
  engine: string;
  budget: string | null;
  conversations: number;
  questions: number;
  f1: Interval | null;
  f1_recovery: Interval | null;
  /** Mean F1 per LoCoMo category (window alone). */
  by_category: Record<string, number>;
}

/** The LoCoMo section of stats.json. */
export interface LocomoStats {
  rows: LocomoF1Entry[];
  pooled: LocomoF1Entry[];
}

/** Every LoCoMo-scored answer's F1 with its category ("-" when it has none). */
export function questionF1s(qa: { answers?: readonly { f1?: number; type?: string }[] } | null | undefined) {
  return (qa?.answers ?? []).flatMap((a) => a.f1 === undefined ? [] : [{ f1: a.f1, type: a.type ?? "-" }]);
}

/** The F1s of `scores` by category, categories sorted. */
export function f1sByCategory(scores: readonly { f1: number; type: string }[]): [string, number[]][] {
  const groups = Map.groupBy(scores, (s) => s.type);
  return [...groups.keys()].sort().map((type) => [type, groups.get(type)!.map((s) => s.f1)]);
}

function entry(
  engine: string,
  budget: string | null,
  rows: readonly LocomoRowLike[],
  options: { resamples: number; seed: string },
): LocomoF1Entry {
  const scores = rows.flatMap((r) => questionF1s(r.probes));
  const recovered = rows.filter((r) => r.recovery?.probes?.f1 !== undefined);
  const ci = (values: number[]) => values.length > 0 ? bootstrapMean(values, options) : null;
  return {
    engine,
    budget,
    conversations: rows.length,
    questions: scores.length,
    f1: ci(scores.map((s) => s.f1)),
    f1_recovery: ci(recovered.flatMap((r) => questionF1s(r.recovery?.probes)).map((s) => s.f1)),
    by_category: Object.fromEntries(f1sByCategory(scores).map(([type, values]) => [type, mean(values)!])),
  };
}

/** LoCoMo F1 per row and pooled per engine and budget, or null when no row was scored by it. */
export function locomoStats(
  results: readonly LocomoRowLike[],
  options: { resamples: number; seed: string },
): LocomoStats | null {
  const scored = results.filter((r) => r.status === "ok" && r.probes?.f1 !== undefined);
  if (scored.length === 0) return null;
  const groups = Map.groupBy(scored, (r) => JSON.stringify([r.group ?? r.engine, r.budget ?? null]));
  return {
    rows: scored.map((r) => entry(r.engine, r.budget ?? null, [r], options)),
    pooled: [...groups.values()].map((rows) =>
      entry(rows[0].group ?? rows[0].engine, rows[0].budget ?? null, rows, options)
    ),
  };
}

/** What the LoCoMo tables are (REPORT.md and report.html). */
export const LOCOMO_NOTE =
  "LoCoMo's own questions (the file's QA annotations), one question per prompt, scored by LoCoMo's " +
  "answer F1 with its normalisation (no LLM judge): Porter-stemmed word overlap; category 1 (multi-hop) " +
  "averages each comma-separated gold part's best match, category 3 scores against the answer before " +
  "';', category 5 (adversarial) scores 1 when the reply declines (NOT IN CONTEXT, 'not mentioned', 'no " +
  "information available'), else 0. F1 in points with a 95% bootstrap CI over questions; *pooled* takes " +
  "every question of every conversation of the engine's rows. The overall F1 includes category 5, which " +
  "a model that always declines scores fully on: read it with the per-category columns.";

/** Headers and rows of the LoCoMo tables: one per row, and the pooled one. */
export function locomoTables(stats: LocomoStats): {
  header: string[];
  rows: string[][];
  pooledHeader: string[];
  pooled: string[][];
} {
  const categories = [
    ...new Set([...stats.rows, ...stats.pooled].flatMap((e) => Object.keys(e.by_category))),
  ].sort();
  const cells = (e: LocomoF1Entry) => [
    String(e.questions),
    e.f1 ? formatInterval(e.f1) : "n/a",
    ...categories.map((c) => e.by_category[c] === undefined ? "-" : (100 * e.by_category[c]).toFixed(1)),
    e.f1_recovery ? formatInterval(e.f1_recovery) : "-",
  ];
  const tail = ["questions", "F1 (95% CI)", ...categories.map((c) => `cat ${c}`), "F1 +recovery (95% CI)"];
  return {
    header: ["engine", "budget", ...tail],
    rows: stats.rows.map((e) => [e.engine, e.budget ?? "-", ...cells(e)]),
    pooledHeader: ["engine", "budget", "conversations", ...tail],
    pooled: stats.pooled.map((e) => [e.engine, e.budget ?? "-", String(e.conversations), ...cells(e)]),
  };
}
