/**
 * Uncertainty of the hotpot results: seeded bootstrap intervals over questions and paired per-question
 * differences; a question's answers are averaged first, invalid counting zero, as in the results table.
 * @module
 */
import type { HotpotMethod } from "../run/methods.ts";
import { declaredMethod } from "../../../methods/registry.ts";
import type { HotpotRowCore } from "../run/stages/rows.ts";
import {
  bootstrapMeans,
  DEFAULT_RESAMPLES,
  DEFAULT_STATS_SEED,
  type Interval,
} from "../../../analysis/bootstrap.ts";
import { EXACT_LIMIT, type PairedDifference, pairedDifference } from "../../../analysis/paired.ts";
import { type HotpotMetric, hotpotMetricsIn, rowValue } from "../run/metrics.ts";

/** Intervals of one method, by metric name (the metrics the table gives an interval). */
export interface HotpotMethodIntervals {
  method: HotpotMethod;
  intervals: Record<string, Interval>;
}

/** One paired comparison (difference = B − A, per question). */
export interface HotpotPairedRow extends PairedDifference {
  a: HotpotMethod;
  b: HotpotMethod;
  metric: string;
}

/** Everything the reports state about uncertainty. */
export interface HotpotStats {
  unit: "question";
  level: number;
  resamples: number;
  seed: string;
  exact_limit: number;
  questions: number;
  methods: HotpotMethodIntervals[];
  paired: HotpotPairedRow[];
}

/** Options of {@link hotpotStats}. */
export interface HotpotStatsOptions {
  resamples?: number;
  seed?: string;
}

/** Per-question means of `metric` for `method`, in `questionIds` order (no rows: 0, as if invalid). */
export function perQuestionMeans(
  rows: readonly HotpotRowCore[],
  method: HotpotMethod,
  metric: HotpotMetric,
  questionIds: readonly string[],
): Float64Array {
  const sum = new Map<string, number>();
  const count = new Map<string, number>();
  for (const r of rows) {
    if (r.method !== method) continue;
    sum.set(r.question_id, (sum.get(r.question_id) ?? 0) + rowValue(metric, r));
    count.set(r.question_id, (count.get(r.question_id) ?? 0) + 1);
  }
  return Float64Array.from(questionIds, (id) => (count.get(id) ? sum.get(id)! / count.get(id)! : 0));
}

/** The pairs compared, by role: (reference, X); for a method C with `parts`, (P, C) and (other X, C). */
export function comparedPairs(methods: readonly HotpotMethod[]): [HotpotMethod, HotpotMethod][] {
  const pairs: [HotpotMethod, HotpotMethod][] = [];
  const reference = (m: HotpotMethod) => declaredMethod(m)?.ceilingBinds === false;
  for (const r of methods.filter(reference)) {
    for (const m of methods) if (m !== r) pairs.push([r, m]);
  }
  for (const c of methods) {
    const parts = declaredMethod(c)?.parts;
    if (!parts) continue;
    for (const p of parts) if (methods.includes(p)) pairs.push([p, c]);
    for (const m of methods) if (!reference(m) && !parts.includes(m) && m !== c) pairs.push([m, c]);
  }
  return pairs;
}

/** Computes the intervals and paired differences of a hotpot run's rows. */
export function hotpotStats(
  rows: readonly HotpotRowCore[],
  methods: readonly HotpotMethod[],
  options: HotpotStatsOptions = {},
): HotpotStats {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_STATS_SEED;
  const questionIds = [...new Set(rows.map((r) => r.question_id))].sort();
  const columns = new Map<string, Float64Array>();
  const column = (method: HotpotMethod, metric: HotpotMetric) => {
    const key = `${method}\u0000${metric.name}`;
    let c = columns.get(key);
    if (!c) columns.set(key, c = perQuestionMeans(rows, method, metric, questionIds));
    return c;
  };
  // Every method's columns in one call: a column equal to another method's is resampled once.
  const metrics = hotpotMetricsIn("intervals");
  const cis = bootstrapMeans(methods.flatMap((method) => metrics.map((m) => column(method, m))), {
    resamples,
    seed,
  });
  const intervals = methods.map((method, j) => ({
    method,
    intervals: Object.fromEntries(metrics.map((m, i) => [m.name, cis[j * metrics.length + i]])),
  }));
  const paired: HotpotPairedRow[] = [];
  for (const [a, b] of comparedPairs(methods)) {
    for (const metric of hotpotMetricsIn("paired")) {
      const diff = pairedDifference(column(a, metric), column(b, metric), { resamples, seed });
      paired.push({ a, b, metric: metric.name, ...diff });
    }
  }
  return {
    unit: "question",
    level: 0.95,
    resamples,
    seed,
    exact_limit: EXACT_LIMIT,
    questions: questionIds.length,
    methods: intervals,
    paired,
  };
}
