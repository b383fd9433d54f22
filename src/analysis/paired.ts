/**
 * Comparisons over units: per-unit means of rows by condition (each unit averaged first); the paired
 * comparison (the mean difference with a bootstrap interval, a sign-flip p-value, exact up to
 * {@link EXACT_LIMIT} non-zero differences, else seeded Monte Carlo, and the 80%-power MDE); and the
 * difference of two independent samples' means (`compare --unpaired`: bootstrap interval, permutation p).
 * @module
 */
import { SeededRandom } from "../data/hotpot_prng.ts";
import {
  bootstrapMean,
  type BootstrapOptions,
  DEFAULT_RESAMPLES,
  DEFAULT_STATS_SEED,
  meanOf,
  quantileSorted,
} from "./bootstrap.ts";

/** Sign vectors are enumerated exactly up to this many non-zero differences (2^20 ≈ 1 million vectors). */
export const EXACT_LIMIT = 20;

/** z₀.₉₇₅ + z₀.₈₀: two-sided α = 0.05 at 80% power. */
export const MDE_FACTOR = 1.959963984540054 + 0.8416212335729143;

/** A paired comparison of B against A over the same units (difference = B − A). */
export interface PairedDifference {
  n: number;
  mean_a: number;
  mean_b: number;
  mean_diff: number;
  lo: number;
  hi: number;
  p: number;
  p_method: "exact" | "monte-carlo";
  /** Smallest mean difference detectable at 80% power (two-sided α = 0.05); null below 2 pairs. */
  mde80: number | null;
}

export interface PairedOptions extends BootstrapOptions {
  permutations?: number;
}

/** The sample standard deviation (n − 1); 0 for fewer than two values. */
export function sampleSd(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return 0;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i];
  mean /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i] - mean) ** 2;
  return Math.sqrt(ss / (n - 1));
}

/** The smallest difference detectable at 80% power, two-sided α = 0.05 (see the module notes); null below 2. */
export function minimumDetectableDifference(differences: ArrayLike<number>): number | null {
  return differences.length < 2 ? null : MDE_FACTOR * sampleSd(differences) / Math.sqrt(differences.length);
}

/** Two-sided sign-flip permutation p-value of the mean of `differences` (see the module notes). */
export function signFlipPValue(
  differences: ArrayLike<number>,
  options: { permutations?: number; seed?: string } = {},
): { p: number; method: "exact" | "monte-carlo" } {
  const nonZero = Float64Array.from(Array.from(differences).filter((d) => d !== 0));
  const k = nonZero.length;
  if (k === 0) return { p: 1, method: "exact" };
  let sum = 0;
  for (let i = 0; i < k; i++) sum += nonZero[i];
  const observed = Math.abs(sum);
  // Sums stand in for means (same n); a relative tolerance keeps ties with the observed value counted.
  const tol = 1e-9 * Math.max(1, observed);
  if (k <= EXACT_LIMIT) {
    // Gray-code order: each next sign vector flips one sign, so each sum is one update of the previous.
    const total = 2 ** k;
    const negative = new Uint8Array(k);
    let s = sum;
    let hits = Math.abs(s) >= observed - tol ? 1 : 0;
    for (let step = 1; step < total; step++) {
      const j = 31 - Math.clz32(step & -step);
      s += negative[j] ? 2 * nonZero[j] : -2 * nonZero[j];
      negative[j] ^= 1;
      if (Math.abs(s) >= observed - tol) hits++;
    }
    return { p: hits / total, method: "exact" };
  }
  const permutations = options.permutations ?? DEFAULT_RESAMPLES;
  const rng = new SeededRandom(`${options.seed ?? DEFAULT_STATS_SEED}:sign-flip`);
  let hits = 0;
  let bits = 0;
  for (let b = 0; b < permutations; b++) {
    let s = 0;
    for (let i = 0; i < k; i++) {
      if (i % 32 === 0) bits = rng.nextUint32();
      s += (bits >>> (i % 32)) & 1 ? -nonZero[i] : nonZero[i];
    }
    if (Math.abs(s) >= observed - tol) hits++;
  }
  return { p: (1 + hits) / (1 + permutations), method: "monte-carlo" };
}

/** Compares B with A over the same units (`a[i]` and `b[i]` belong to one unit). */
export function pairedDifference(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: PairedOptions = {},
): PairedDifference {
  if (a.length !== b.length) throw new Error("pairedDifference: A and B differ in length");
  const n = a.length;
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = b[i] - a[i];
  const ci = bootstrapMean(d, options);
  const test = signFlipPValue(d, {
    permutations: options.permutations ?? options.resamples,
    seed: options.seed,
  });
  return {
    n,
    mean_a: n ? meanOf(a) : NaN,
    mean_b: n ? meanOf(b) : NaN,
    mean_diff: ci.mean,
    lo: ci.lo,
    hi: ci.hi,
    p: test.p,
    p_method: test.method,
    mde80: minimumDetectableDifference(d),
  };
}

/** How to read a row: its condition, its unit id, and its value of a metric. */
export interface UnitAccessors<R> {
  condition: (row: R) => string;
  unit: (row: R) => string;
  value: (row: R) => number;
}

/** condition → unit id → the mean of that unit's values. */
export function unitMeans<R>(rows: readonly R[], get: UnitAccessors<R>): Map<string, Map<string, number>> {
  const sums = new Map<string, Map<string, [number, number]>>();
  for (const row of rows) {
    const c = get.condition(row);
    let units = sums.get(c);
    if (!units) sums.set(c, units = new Map());
    const u = get.unit(row);
    const acc = units.get(u) ?? [0, 0];
    acc[0] += get.value(row);
    acc[1] += 1;
    units.set(u, acc);
  }
  return new Map([...sums].map(([c, units]) => [c, new Map([...units].map(([u, [s, n]]) => [u, s / n]))]));
}

/** Values of `ids` in order from a unit map (a missing unit is 0, as an invalid condition would be). */
export function column(units: ReadonlyMap<string, number> | undefined, ids: readonly string[]): Float64Array {
  return Float64Array.from(ids, (id) => units?.get(id) ?? 0);
}

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

/** Compares independent samples `a` and `b`: bootstrap interval and permutation p of B − A. */
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
