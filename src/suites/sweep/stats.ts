/**
 * Uncertainty of the sweep results over generations (a generation's answers averaged first, as in the table);
 * paired differences: each S+Top N against S, each context against Full.
 * @module
 */
import { sweepMetricsIn, type SweepResultRow, sweepRowValue } from "./aggregate.ts";
import {
  bootstrapMeans,
  DEFAULT_RESAMPLES,
  DEFAULT_STATS_SEED,
  type Interval,
} from "../../analysis/bootstrap.ts";
import { column, type PairedDifference, pairedDifference, unitMeans } from "../../analysis/paired.ts";

/** Intervals and paired differences of a sweep run. */
export interface SweepStats {
  unit: "generation";
  level: number;
  resamples: number;
  seed: string;
  generations: number;
  /** Per context kind: its intervals and the share of its answers that were invalid (0–1). */
  kinds: { kind: string; intervals: Record<string, Interval>; invalid: number }[];
  paired: ({ a: string; b: string; metric: string } & PairedDifference)[];
}

/** Computes the sweep intervals and paired differences. */
export function sweepStats(
  rows: readonly SweepResultRow[],
  kinds: readonly string[],
  options: { resamples?: number; seed?: string } = {},
): SweepStats {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_STATS_SEED;
  const boot = { resamples, seed };
  const intervalMetrics = sweepMetricsIn("intervals");
  const unit = (r: SweepResultRow) => String(r.generation);
  const ids = [...new Set(rows.map(unit))].sort((x, y) => Number(x) - Number(y));
  const means = Object.fromEntries(
    [...new Set([...intervalMetrics, ...sweepMetricsIn("paired")])].map((m) => [
      m.name,
      unitMeans(rows, { condition: (r) => r.kind, unit, value: (r) => sweepRowValue(m, r) }),
    ]),
  );
  const intervals = kinds.map((kind) => {
    const cis = bootstrapMeans(intervalMetrics.map((m) => column(means[m.name].get(kind), ids)), boot);
    const mine = rows.filter((r) => r.kind === kind);
    return {
      kind,
      intervals: Object.fromEntries(intervalMetrics.map((m, i) => [m.name, cis[i]])),
      invalid: mine.length === 0 ? 0 : mine.filter((r) => r.status !== "ok").length / mine.length,
    };
  });
  const pairs: [string, string][] = [];
  for (const k of kinds) if (k !== "S" && k !== "full" && kinds.includes("S")) pairs.push(["S", k]);
  for (const k of kinds) if (k !== "full" && kinds.includes("full")) pairs.push(["full", k]);
  const paired = pairs.flatMap(([a, b]) =>
    sweepMetricsIn("paired").map(({ name: metric }) => ({
      a,
      b,
      metric,
      ...pairedDifference(column(means[metric].get(a), ids), column(means[metric].get(b), ids), boot),
    }))
  );
  return {
    unit: "generation",
    level: 0.95,
    resamples,
    seed,
    generations: ids.length,
    kinds: intervals,
    paired,
  };
}
