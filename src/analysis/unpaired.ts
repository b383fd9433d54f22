/**
 * Difference of the means of two independent samples (`compare --unpaired`): bootstrap interval, permutation p.
 * @module
 */
import { SeededRandom } from "../data/hotpot_prng.ts";
import { DEFAULT_RESAMPLES, DEFAULT_STATS_SEED, meanOf, quantileSorted } from "./bootstrap.ts";

/** B − A for independent samples. */
export interface UnpairedDifference {
  n_a: number;
  n_b: number;
  mean_a: number;
  mean_b: number;
  mean_diff: number;
  lo: number;
  hi: number;
  p: number;
}

/** Compares independent samples `a` and `b` (see the module notes). */
export function unpairedDifference(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: { resamples?: number; seed?: string } = {},
): UnpairedDifference {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_STATS_SEED;
  const xa = Float64Array.from(a);
  const xb = Float64Array.from(b);
  const ma = meanOf(xa);
  const mb = meanOf(xb);
  const out = { n_a: xa.length, n_b: xb.length, mean_a: ma, mean_b: mb, mean_diff: mb - ma };
  if (xa.length === 0 || xb.length === 0) return { ...out, lo: NaN, hi: NaN, p: NaN };
  const rng = new SeededRandom(`${seed}:unpaired`);
  const draw = (x: Float64Array) => {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[Math.floor(rng.next() * x.length)];
    return s / x.length;
  };
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) diffs[r] = draw(xb) - draw(xa);
  diffs.sort();
  const pooled = Float64Array.from([...xa, ...xb]);
  const observed = Math.abs(mb - ma);
  const tol = 1e-9 * Math.max(1, observed);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < xa.length; i++) {
      const j = i + Math.floor(rng.next() * (pooled.length - i));
      const t = pooled[i];
      pooled[i] = pooled[j];
      pooled[j] = t;
    }
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < pooled.length; i++) i < xa.length ? (sa += pooled[i]) : (sb += pooled[i]);
    if (Math.abs(sb / xb.length - sa / xa.length) >= observed - tol) hits++;
  }
  return {
    ...out,
    lo: quantileSorted(diffs, 0.025),
    hi: quantileSorted(diffs, 0.975),
    p: (1 + hits) / (1 + resamples),
  };
}
