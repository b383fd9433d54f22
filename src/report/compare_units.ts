/**
 * The unit-level part of `compare`: per condition and metric, B − A of the per-unit means, paired or unpaired.
 * @module
 */
import { join } from "node:path";
import type { z } from "zod";
import { DEFAULT_RESAMPLES } from "../analysis/bootstrap.ts";
import { column, pairedDifference, unitMeans, unpairedDifference } from "../analysis/paired.ts";
import { UsageError } from "../errors.ts";
import { mostlyInvalidNote } from "../analysis/format.ts";
import { MAX_RUN_FILE_BYTES, readInputText } from "../fs_input.ts";
import { parseJson } from "../core/json_read.ts";

interface UnitComparisonRow {
  key: string;
  metric: string;
  /** Pairs (paired) or units of A and B (unpaired). */
  n: number | { a: number; b: number };
  a: number;
  b: number;
  diff: number;
  lo: number;
  hi: number;
  p: number;
  p_method: "exact" | "monte-carlo" | "permutation";
  mde80: number | null;
  /** "not a finding: …" when A's or B's condition was mostly invalid. */
  note: string | null;
}

export interface UnitComparison {
  unit: string;
  paired: boolean;
  pairs: number;
  only_a: number;
  only_b: number;
  resamples: number;
  rows: UnitComparisonRow[];
}

/** How a suite's published rows are compared unit by unit (`Suite.compareUnits`). */
export interface CompareUnits<R> {
  unit: string;
  schema: z.ZodType<R[]>;
  unitOf: (row: R) => string;
  conditionOf: (row: R) => string;
  metrics: [string, (row: R) => number][];
  /** Whether a row is valid, and what its rows are called in the note of a mostly invalid side. */
  validity?: { valid: (row: R) => boolean; noun: string };
}

function invalidShares<R>(spec: CompareUnits<R>, rows: readonly R[]): Map<string, number> {
  const counts = new Map<string, { invalid: number; all: number }>();
  if (!spec.validity) return new Map();
  for (const row of rows) {
    const key = spec.conditionOf(row);
    const count = counts.get(key) ?? { invalid: 0, all: 0 };
    count.all++;
    if (!spec.validity.valid(row)) count.invalid++;
    counts.set(key, count);
  }
  return new Map([...counts].map(([key, n]) => [key, n.invalid / n.all]));
}

async function readRows<R>(run: string, schema: z.ZodType<R[]>): Promise<R[]> {
  const path = join(run, "results.json");
  const text = await readInputText(path, undefined, MAX_RUN_FILE_BYTES);
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(`${path}: not JSON (${error.message})`);
    throw error;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}

function compareUnits<R>(
  spec: CompareUnits<R>,
  rowsA: readonly R[],
  rowsB: readonly R[],
  paired: boolean,
  resamples: number,
): UnitComparison {
  const idsA = new Set(rowsA.map(spec.unitOf));
  const idsB = new Set(rowsB.map(spec.unitOf));
  const shared = [...idsA].filter((id) => idsB.has(id)).sort();
  const conditionsA = [...new Set(rowsA.map(spec.conditionOf))];
  const conditionsB = new Set(rowsB.map(spec.conditionOf));
  const rows: UnitComparisonRow[] = [];
  const [invalidA, invalidB] = [invalidShares(spec, rowsA), invalidShares(spec, rowsB)];
  const noteOf = (key: string) =>
    mostlyInvalidNote(
      (side) => (side === "A" ? invalidA : invalidB).get(key) ?? 0,
      "A",
      "B",
      spec.validity?.noun ?? "rows",
    ) || null;
  const [sortedA, sortedB] = [[...idsA].sort(), [...idsB].sort()];
  for (const [metric, value] of spec.metrics) {
    const get = { condition: spec.conditionOf, unit: spec.unitOf, value };
    const [ma, mb] = [unitMeans(rowsA, get), unitMeans(rowsB, get)];
    for (const key of conditionsA.filter((c) => conditionsB.has(c))) {
      const pd = paired
        ? pairedDifference(column(ma.get(key), shared), column(mb.get(key), shared), { resamples })
        : null;
      const ud = pd
        ? null
        : unpairedDifference(column(ma.get(key), sortedA), column(mb.get(key), sortedB), { resamples });
      const d = pd ?? ud!;
      rows.push({
        key,
        metric,
        n: pd ? pd.n : { a: ud!.n_a, b: ud!.n_b },
        a: d.mean_a,
        b: d.mean_b,
        diff: d.mean_diff,
        lo: d.lo,
        hi: d.hi,
        p: d.p,
        p_method: pd ? pd.p_method : "permutation",
        mde80: pd ? pd.mde80 : null,
        note: noteOf(key),
      });
    }
  }
  rows.sort((x, y) => conditionsA.indexOf(x.key) - conditionsA.indexOf(y.key));
  return {
    unit: spec.unit,
    paired,
    pairs: shared.length,
    only_a: idsA.size - shared.length,
    only_b: idsB.size - shared.length,
    resamples,
    rows,
  };
}

/** The unit-level comparison of two runs (`paired` false: independent samples), or null without unit rows. */
export async function unitComparison<R>(
  a: string,
  b: string,
  spec: CompareUnits<R> | undefined,
  options: { paired: boolean; resamples?: number },
): Promise<UnitComparison | null> {
  if (!spec) return null;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const [ra, rb] = await Promise.all([readRows(a, spec.schema), readRows(b, spec.schema)]);
  return compareUnits(spec, ra, rb, options.paired, resamples);
}
