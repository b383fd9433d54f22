/**
 * Comparing two finished runs of the same suite: per method (hotpot), context kind (sweep) or engine
 * (engines), each headline metric side by side with its difference. Reads the runs' exported
 * `aggregate.json` / `results.json` and their manifests; it never changes either run.
 *
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../errors.ts";
import { readManifest } from "../store/run_dir.ts";
import { readInputJson } from "../fs_input.ts";
import type { Cell } from "./markdown_table.ts";

/** One compared metric of one row key. */
export interface ComparedMetric {
  key: string;
  metric: string;
  a: number | null;
  b: number | null;
  delta: number | null;
}

/** The comparison of two runs. */
export interface RunComparison {
  suite: string;
  a: { path: string; created: string; models: unknown };
  b: { path: string; created: string; models: unknown };
  metrics: ComparedMetric[];
}

type Extracted = Map<string, Record<string, number | null>>;

function readJson(path: string): Promise<unknown> {
  return readInputJson(path);
}

async function extract(run: string, suite: string): Promise<Extracted> {
  const out: Extracted = new Map();
  if (suite === "hotpot") {
    const rows = await readJson(join(run, "aggregate.json")) as {
      method: string;
      metrics: Record<string, number>;
      sp_survival: number;
      valid: number;
      input_tokens: { mean: number | null };
    }[];
    for (const r of rows) {
      out.set(r.method, {
        em: r.metrics.em,
        f1: r.metrics.f1,
        sp_f1: r.metrics.sp_f1,
        joint_f1: r.metrics.joint_f1,
        gold_sp_kept: r.sp_survival,
        valid: r.valid,
        input_tokens_mean: r.input_tokens.mean,
      });
    }
  } else if (suite === "sweep") {
    const rows = await readJson(join(run, "aggregate.json")) as {
      kind: string;
      fact_score: number;
      repair_pass_share: number;
      valid: number;
      input_tokens: { mean: number | null };
    }[];
    for (const r of rows) {
      out.set(r.kind, {
        fact_score: r.fact_score,
        repair_pass: r.repair_pass_share,
        valid: r.valid,
        input_tokens_mean: r.input_tokens.mean,
      });
    }
  } else if (suite === "engines") {
    const results = await readJson(join(run, "results.json")) as {
      engines: {
        engine: string;
        savings_pct: number | null;
        needles: { recall: number | null };
        qa: { recall: number | null } | null;
        latency_ms: { cold: number | null; warm_median: number | null };
      }[];
    };
    for (const e of results.engines) {
      out.set(e.engine, {
        savings_pct: e.savings_pct,
        needle_recall: e.needles.recall,
        qa_recall: e.qa?.recall ?? null,
        cold_ms: e.latency_ms.cold,
        warm_median_ms: e.latency_ms.warm_median,
      });
    }
  } else {
    throw new UsageError(`${run}: runs of suite '${suite}' have no metrics to compare`);
  }
  return out;
}

/** Compares two finished runs of the same suite; refuses unfinished runs and runs of different suites. */
export async function compareRuns(a: string, b: string): Promise<RunComparison> {
  const [ma, mb] = await Promise.all([readManifest(a), readManifest(b)]);
  if (ma.suite !== mb.suite) {
    throw new UsageError(`cannot compare a '${ma.suite}' run (${a}) with a '${mb.suite}' run (${b})`);
  }
  const [ea, eb] = await Promise.all([extract(a, ma.suite), extract(b, mb.suite)]);
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
    a: { path: a, created: ma.created, models: models(ma) },
    b: { path: b, created: mb.created, models: models(mb) },
    metrics,
  };
}

/** Table rows (key, metric, A, B, B − A) for printing. */
export function comparisonRows(comparison: RunComparison): Cell[][] {
  return comparison.metrics.map((m) => [m.key, m.metric, m.a, m.b, m.delta]);
}
