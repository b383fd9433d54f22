/**
 * Comparing two finished runs of one suite from their published files: each headline metric side by side.
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../errors.ts";
import { readManifest } from "../store/run_dir.ts";
import { MAX_RUN_FILE_BYTES, readInputJson } from "../fs_input.ts";
import type { Cell } from "../core/markdown_table.ts";
import { type CompareUnits, type UnitComparison, unitComparison } from "./compare_units.ts";
import {
  answeredNames,
  type AnsweringModels,
  AnsweringModelsSchema,
  mergeAnsweringModels,
  MODEL_ROLES,
  modelChangeNotice,
  modelsFact,
} from "../core/answering_models.ts";

interface ComparedMetric {
  key: string;
  metric: string;
  a: number | null;
  b: number | null;
  delta: number | null;
}

export interface RunComparison {
  suite: string;
  a: { path: string; created: string; models: unknown; answering: AnsweringModels | null };
  b: { path: string; created: string; models: unknown; answering: AnsweringModels | null };
  metrics: ComparedMetric[];
  /** Per-unit (paired, or `--unpaired`) differences; null for engines runs. */
  units: UnitComparison | null;
  /** Whether both runs used the same source data. */
  same_sources: boolean;
}

type Extracted = Map<string, Record<string, number | null>>;

/** How a suite's headline metrics are read from its published files, and how its rows pair unit by unit. */
export interface SuiteComparison {
  compareMetrics?: (files: { aggregate: unknown; results: unknown }) => Extracted;
  // deno-lint-ignore no-explicit-any
  compareUnits?: CompareUnits<any>;
}

export type SuiteComparisonOf = (suite: string) => SuiteComparison | undefined;

async function readOptional(path: string): Promise<unknown> {
  try {
    await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  return await readInputJson(path, undefined, MAX_RUN_FILE_BYTES);
}

/** The models that answered a run, per role, from its published aggregate.json; null when not recorded. */
export function answeringModelsOf(aggregate: unknown): AnsweringModels | null {
  if (aggregate !== null && typeof aggregate === "object" && !Array.isArray(aggregate)) {
    const parsed = AnsweringModelsSchema.safeParse(
      (aggregate as { answering_models?: unknown }).answering_models,
    );
    if (parsed.success) return parsed.data;
  }
  if (!Array.isArray(aggregate)) return null;
  const rows = aggregate.map((row) => AnsweringModelsSchema.safeParse((row as { models?: unknown })?.models));
  if (rows.length === 0 || rows.some((row) => !row.success)) return null;
  return mergeAnsweringModels(rows.map((row) => row.data));
}

async function extract(
  run: string,
  suite: string,
  suiteOf: SuiteComparisonOf,
): Promise<{ metrics: Extracted; answering: AnsweringModels | null }> {
  const metrics = suiteOf(suite)?.compareMetrics;
  if (!metrics) throw new UsageError(`${run}: runs of suite '${suite}' have no metrics to compare`);
  const [aggregate, results] = await Promise.all([
    readOptional(join(run, "aggregate.json")),
    readOptional(join(run, "results.json")),
  ]);
  if (aggregate === null && results === null) {
    throw new UsageError(`${join(run, "aggregate.json")}: not found`);
  }
  return { metrics: metrics({ aggregate, results }), answering: answeringModelsOf(aggregate) };
}

export interface CompareOptions {
  /** Compare runs over different source data as independent samples (default: refuse). */
  unpaired?: boolean;
  resamples?: number;
}

/** Compares two finished runs of one suite; refuses unfinished runs and other source data unless `unpaired`. */
export async function compareRuns(
  a: string,
  b: string,
  suiteOf: SuiteComparisonOf,
  options: CompareOptions = {},
): Promise<RunComparison> {
  const [ma, mb] = await Promise.all([readManifest(a), readManifest(b)]);
  if (ma.suite !== mb.suite) {
    throw new UsageError(`cannot compare a '${ma.suite}' run (${a}) with a '${mb.suite}' run (${b})`);
  }
  const sameSources = JSON.stringify(Object.entries(ma.sources).sort()) ===
    JSON.stringify(Object.entries(mb.sources).sort());
  if (!sameSources && !options.unpaired) {
    const describe = (m: typeof ma) =>
      Object.entries(m.sources).map(([k, v]) => `${k} ${v.slice(0, 12)}`).join(", ") || "none";
    throw new UsageError(
      `runs over different corpora cannot be paired (A: ${describe(ma)}; B: ${describe(mb)}); ` +
        `pass --unpaired to compare them as independent samples`,
    );
  }
  const unitOptions = { paired: !options.unpaired, resamples: options.resamples };
  const units = await unitComparison(a, b, suiteOf(ma.suite)?.compareUnits, unitOptions);
  const [xa, xb] = await Promise.all([extract(a, ma.suite, suiteOf), extract(b, mb.suite, suiteOf)]);
  const [ea, eb] = [xa.metrics, xb.metrics];
  const keys = [...ea.keys(), ...[...eb.keys()].filter((k) => !ea.has(k))];
  const metrics: ComparedMetric[] = [];
  for (const key of keys) {
    const va = ea.get(key) ?? {};
    const vb = eb.get(key) ?? {};
    for (const metric of new Set([...Object.keys(va), ...Object.keys(vb)])) {
      const x = va[metric] ?? null;
      const y = vb[metric] ?? null;
      metrics.push({ key, metric, a: x, b: y, delta: x !== null && y !== null ? y - x : null });
    }
  }
  const models = (m: typeof ma) => (m.protocol as { models?: unknown } | null)?.models ?? null;
  return {
    suite: ma.suite,
    a: { path: a, created: ma.created, models: models(ma), answering: xa.answering },
    b: { path: b, created: mb.created, models: models(mb), answering: xb.answering },
    metrics,
    units,
    same_sources: sameSources,
  };
}

/** One line per run naming its requested and answering models, and a notice when they changed or differ. */
export function comparisonModelLines(
  comparison: RunComparison,
  code = (name: string) => `\`${name}\``,
): string[] {
  const lines: string[] = [];
  for (const [side, run] of [["A", comparison.a], ["B", comparison.b]] as const) {
    const m = run.models as { chat_model?: unknown; decision_model?: unknown } | null;
    if (typeof m?.chat_model !== "string" || typeof m?.decision_model !== "string") continue;
    const requested = { chat_model: m.chat_model, decision_model: m.decision_model };
    const fact = run.answering === null
      ? `chat ${code(requested.chat_model)}, decision ${
        code(requested.decision_model)
      } (answering models not recorded)`
      : modelsFact(requested, run.answering, code);
    lines.push(`${side}: ${fact}`);
    const changed = run.answering === null ? null : modelChangeNotice(run.answering);
    if (changed) lines.push(`${side}: ${changed}`);
  }
  const names = (run: RunComparison["a"]) =>
    JSON.stringify(MODEL_ROLES.map((role) => answeredNames(run.answering?.[role]?.answered ?? {})));
  if (comparison.a.answering && comparison.b.answering && names(comparison.a) !== names(comparison.b)) {
    lines.push("The runs were answered by different models: their differences include the models'.");
  }
  return lines;
}

/** `text` without a negative zero: `-0.0` (a tiny negative rounded) reads `0.0`. */
export function withoutNegativeZero(text: string): string {
  return text.replace(/(^|[^\d.])-(0(?:\.0+)?)(?![\d.])/g, "$1$2");
}

/** A compared value as text: shares in points with one decimal, counts plainly, other means with two. */
function compareValue(value: number | null, share: boolean, signed = false): string | null {
  if (value === null) return null;
  const x = share ? value * 100 : value;
  const text = share ? x.toFixed(1) : Number.isInteger(x) ? String(x) : x.toFixed(2);
  const clean = withoutNegativeZero(text);
  return signed && x > 0 && !/^0(\.0+)?$/.test(clean) ? `+${clean}` : clean;
}

/** Table rows (key, metric, A, B, B − A): the suite's `shares` in percentage points, never a negative zero. */
export function comparisonRows(comparison: RunComparison, shares: ReadonlySet<string>): Cell[][] {
  return comparison.metrics.map((m) => {
    const share = shares.has(m.metric);
    return [
      m.key,
      share ? `${m.metric} (points)` : m.metric,
      compareValue(m.a, share),
      compareValue(m.b, share),
      compareValue(m.delta, share, true),
    ];
  });
}
