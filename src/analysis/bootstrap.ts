/**
 * Seeded percentile bootstrap of a mean over units: every column resampled with the same seeded indices.
 * @module
 */
import { SeededRandom } from "../data/hotpot_prng.ts";

export const DEFAULT_RESAMPLES = 10_000;

/** Default seed text of the bootstrap; every statistic of a report uses it, so all share their resamples. */
export const DEFAULT_STATS_SEED = "compaction-bench/stats@1";

/** A point estimate with its percentile interval. */
export interface Interval {
  mean: number;
  lo: number;
  hi: number;
  n: number;
}

export interface BootstrapOptions {
  resamples?: number;
  /** Seed text; the same seed and values give the same interval. */
  seed?: string;
  level?: number;
}

/** The mean of an array (0 for an empty one). */
export function meanOf(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return values.length === 0 ? 0 : sum / values.length;
}

/** Quantile `p` of ascending sorted values, linear interpolation between order statistics (R type 7). */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** At most this many values are sampled to bracket an order statistic. */
const BRACKET_SAMPLE = 1024;

/**
 * Quantiles `ps` of `values`, exactly as {@link quantileSorted} of them sorted, without sorting them all (a
 * sorted sample brackets the order statistics; only values within the bracket are sorted).
 */
export function quantilesOf(values: Float64Array, ps: readonly number[]): number[] {
  const count = values.length;
  if (count <= BRACKET_SAMPLE) {
    const sorted = values.slice().sort();
    return ps.map((p) => quantileSorted(sorted, p));
  }
  const step = Math.floor(count / BRACKET_SAMPLE);
  const sample = new Float64Array(Math.ceil(count / step));
  for (let i = 0, j = 0; i < count; i += step, j++) sample[j] = values[i];
  sample.sort();
  const last = count - 1;
  const inside = new Float64Array(count);
  let sorted: Float64Array | undefined;
  return ps.map((p) => {
    const h = last * p;
    const rank = Math.floor(h);
    const next = Math.min(last, rank + 1);
    // A bracket of four sd (binomial) plus two misses about once in 30,000 calls (and then costs a sort).
    const q = rank / count;
    const margin = Math.ceil(4 * Math.sqrt(sample.length * q * (1 - q))) + 2;
    const at = q * sample.length;
    const lowAt = Math.floor(at) - margin;
    const highAt = Math.ceil(at) + margin;
    const low = lowAt <= 0 ? -Infinity : sample[lowAt];
    const high = highAt >= sample.length - 1 ? Infinity : sample[highAt];
    const gathered = bracket(values, low, high, inside);
    const below = gathered.below;
    if (below <= rank && next < below + gathered.inside) {
      const part = inside.subarray(0, gathered.inside).sort();
      const vLo = part[rank - below];
      return vLo + (h - rank) * (part[next - below] - vLo);
    }
    sorted ??= values.slice().sort();
    return quantileSorted(sorted, p);
  });
}

/** Counts the values below `low` and copies those in `[low, high]` into `inside` (NaN is neither). */
function bracket(
  values: Float64Array,
  low: number,
  high: number,
  inside: Float64Array,
): { below: number; inside: number } {
  let below = 0;
  let within = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v < low) below++;
    else if (v <= high) inside[within++] = v;
  }
  return { below, inside: within };
}

/** Percentile bootstrap intervals of the means of equal-length columns, all resampled with the same indices. */
export function bootstrapMeans(
  columns: readonly ArrayLike<number>[],
  options: BootstrapOptions = {},
): Interval[] {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.level ?? 0.95;
  const n = columns[0]?.length ?? 0;
  if (columns.some((c) => c.length !== n)) throw new Error("bootstrapMeans: columns differ in length");
  if (!(resamples >= 1) || !Number.isInteger(resamples)) throw new Error("bootstrapMeans: bad resamples");
  const data = columns.map((c) => Float64Array.from(c));
  if (n === 0) return data.map(() => ({ mean: NaN, lo: NaN, hi: NaN, n: 0 }));
  // A constant column is not resampled: its bounds are its mean exactly, with no rounding noise. A column equal
  // to an earlier one (value for value, as `Object.is`) is resampled once: its sums are the same, bit for bit.
  const varying: Float64Array[] = [];
  const slots = data.map((col) => {
    if (col.every((v) => v === col[0])) return -1;
    const same = varying.findIndex((other) => other.every((v, i) => Object.is(v, col[i])));
    return same >= 0 ? same : varying.push(col) - 1;
  });
  const means = varying.map(() => new Float64Array(resamples));
  if (varying.length > 0) {
    const plan = resamplePlan(n, resamples, options.seed ?? DEFAULT_STATS_SEED);
    const index = plan.indices;
    if (plan.whole) {
      // One small function per column: compiled early, so the first report's millions of additions are optimized.
      for (let k = 0; k < varying.length; k++) resampleMeans(varying[k], index, n, means[k]);
    } else {
      for (let b = 0; b < resamples; b++) {
        const at = plan.at(b);
        for (let k = 0; k < varying.length; k++) {
          const col = varying[k];
          let s = 0;
          for (let i = at; i < at + n; i++) s += col[index[i]];
          means[k][b] = s / n;
        }
      }
    }
  }
  const alpha = (1 - level) / 2;
  const bounds = means.map((m) => quantilesOf(m, [alpha, 1 - alpha]));
  return data.map((col, i) => {
    const k = slots[i];
    if (k < 0) return { mean: col[0], lo: col[0], hi: col[0], n };
    const [lo, hi] = bounds[k];
    return { mean: meanOf(col), lo, hi, n };
  });
}

/** `out[b]` = the mean of `col` over resample `b`'s indices; four resamples summed side by side (same bits). */
function resampleMeans(col: Float64Array, indices: Uint32Array, n: number, out: Float64Array): void {
  const resamples = out.length;
  let b = 0;
  for (let at = 0; b + 4 <= resamples; b += 4, at += 4 * n) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = at, end = at + n; i < end; i++) {
      s0 += col[indices[i]];
      s1 += col[indices[i + n]];
      s2 += col[indices[i + 2 * n]];
      s3 += col[indices[i + 3 * n]];
    }
    out[b] = s0 / n;
    out[b + 1] = s1 / n;
    out[b + 2] = s2 / n;
    out[b + 3] = s3 / n;
  }
  for (let at = b * n; b < resamples; b++, at += n) {
    let s = 0;
    for (let i = at, end = at + n; i < end; i++) s += col[indices[i]];
    out[b] = s / n;
  }
}

/** Plans up to this many indices are kept for reuse (16 MiB). */
const PLAN_CACHE_LIMIT = 1 << 22;
const planCache = new Map<string, Uint32Array>();

/** Where resample `b`'s `n` indices lie: from `indices[at(b)]` (offsets: a report asks for millions). */
interface ResamplePlan {
  indices: Uint32Array;
  /** Every resample's indices are in `indices` (`at(b)` is `b × n`). */
  whole: boolean;
  at(b: number): number;
}

/** The resample indices of a seed (the same for the same n, resamples, seed); small plans are cached. */
function resamplePlan(n: number, resamples: number, seed: string): ResamplePlan {
  const key = `${n}\u0000${resamples}\u0000${seed}`;
  if (n * resamples <= PLAN_CACHE_LIMIT) {
    let all = planCache.get(key);
    if (!all) {
      const rng = new SeededRandom(seed);
      all = new Uint32Array(n * resamples);
      rng.fillBelow(all, n);
      if (planCache.size >= 4) planCache.delete(planCache.keys().next().value!);
      planCache.set(key, all);
    }
    return { indices: all, whole: true, at: (b) => b * n };
  }
  const rng = new SeededRandom(seed);
  const index = new Uint32Array(n);
  return {
    indices: index,
    whole: false,
    at: () => {
      for (let i = 0; i < n; i++) index[i] = Math.floor(rng.next() * n);
      return 0;
    },
  };
}

/** One column's interval (see {@link bootstrapMeans}). */
export function bootstrapMean(values: ArrayLike<number>, options: BootstrapOptions = {}): Interval {
  return bootstrapMeans([values], options)[0];
}

/** A bootstrap interval of Σ numerators / Σ denominators (a resample whose denominators sum to 0 is left out). */
export function bootstrapRatio(
  numerators: ArrayLike<number>,
  denominators: ArrayLike<number>,
  options: BootstrapOptions = {},
): Interval {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.level ?? 0.95;
  const n = numerators.length;
  if (denominators.length !== n) throw new Error("bootstrapRatio: columns differ in length");
  if (!(resamples >= 1) || !Number.isInteger(resamples)) throw new Error("bootstrapRatio: bad resamples");
  const num = Float64Array.from(numerators);
  const den = Float64Array.from(denominators);
  const total = den.reduce((s, v) => s + v, 0);
  if (n === 0 || total === 0) return { mean: NaN, lo: NaN, hi: NaN, n };
  const mean = num.reduce((s, v) => s + v, 0) / total;
  const ratios = Array.from(num, (v, i) => v / den[i]);
  const constant = den.every((d) => d > 0) && ratios.every((r) => r === ratios[0]);
  if (constant) return { mean, lo: mean, hi: mean, n };
  const values = new Float64Array(resamples);
  let kept = 0;
  const plan = resamplePlan(n, resamples, options.seed ?? DEFAULT_STATS_SEED);
  const index = plan.indices;
  for (let b = 0; b < resamples; b++) {
    const at = plan.at(b);
    let s = 0;
    let d = 0;
    for (let i = at; i < at + n; i++) {
      s += num[index[i]];
      d += den[index[i]];
    }
    if (d > 0) values[kept++] = s / d;
  }
  const alpha = (1 - level) / 2;
  const [lo, hi] = quantilesOf(values.subarray(0, kept), [alpha, 1 - alpha]);
  return { mean, lo, hi, n };
}
