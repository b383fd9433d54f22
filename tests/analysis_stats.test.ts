/**
 * The bootstrap, the paired sign-flip test and the power figure against known values.
 */
import assert from "node:assert/strict";
import {
  bootstrapMean,
  bootstrapMeans,
  bootstrapRatio,
  quantilesOf,
  quantileSorted,
} from "../src/analysis/bootstrap.ts";
import { formatDifference, formatInterval, formatP, groupedInteger } from "../src/analysis/format.ts";
import { hotpotStats, perQuestionMeans } from "../src/suites/hotpot/report/stats.ts";
import { hotpotMetric } from "../src/suites/hotpot/run/metrics.ts";
import {
  MDE_FACTOR,
  minimumDetectableDifference,
  pairedDifference,
  signFlipPValue,
} from "../src/analysis/paired.ts";
import type { HotpotResultRow } from "../src/suites/hotpot/run/run_suite.ts";
import { METRIC_NAMES } from "../src/suites/hotpot/run/scoring.ts";

Deno.test("a constant metric has a zero-width interval centred on it", () => {
  const ci = bootstrapMean(new Array(30).fill(0.4));
  assert.deepEqual(ci, { mean: 0.4, lo: 0.4, hi: 0.4, n: 30 });
  assert.deepEqual(bootstrapMean([1]), { mean: 1, lo: 1, hi: 1, n: 1 });
});

Deno.test("constant columns beside varying ones: zero-width, and the varying ones' intervals as alone", () => {
  const a = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 1 : 0));
  const b = Array.from({ length: 30 }, (_, i) => (i * 7) % 11 / 10);
  const flat = new Array(30).fill(0.25);
  const together = bootstrapMeans([flat, a, flat, b]);
  assert.deepEqual(together[0], { mean: 0.25, lo: 0.25, hi: 0.25, n: 30 });
  assert.deepEqual(together[2], together[0]);
  assert.deepEqual(together[1], bootstrapMeans([a])[0]);
  assert.deepEqual(together[3], bootstrapMeans([b])[0]);
  assert.ok(together[1].lo < together[1].hi && together[3].lo < together[3].hi);
  assert.deepEqual(bootstrapMeans([flat, flat]), [together[0], together[0]]);
  // A repeated column (resampled once) has the interval it has alone; -0 and 0 are told apart yet sum alike.
  const zeros = Array.from(a, (v) => (v === 0 ? -0 : v));
  assert.deepEqual(bootstrapMeans([b, a, b, zeros, a]), [
    together[3],
    together[1],
    together[3],
    together[1],
    together[1],
  ]);
});

Deno.test("a fixed seed gives a fixed interval; another seed may move it slightly", () => {
  const values = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 1 : 0));
  const a = bootstrapMean(values, { seed: "s1" });
  const b = bootstrapMean(values, { seed: "s1" });
  assert.deepEqual(a, b);
  assert.ok(Math.abs(a.mean - 1 / 3) < 1e-12);
  // The interval is a percentile interval of resample means of 0/1 values: multiples of 1/30.
  assert.ok(Math.abs(a.lo * 30 - Math.round(a.lo * 30)) < 1e-9);
  assert.ok(a.lo < a.mean && a.mean < a.hi);
  // A normal approximation (mean ± 1.96 se) agrees to within two units of 1/30.
  const se = Math.sqrt((1 / 3) * (2 / 3) / 30);
  assert.ok(Math.abs(a.lo - (1 / 3 - 1.96 * se)) < 2 / 30, `lo ${a.lo}`);
  assert.ok(Math.abs(a.hi - (1 / 3 + 1.96 * se)) < 2 / 30, `hi ${a.hi}`);
});

Deno.test("columns bootstrapped together share their resamples", () => {
  const x = [0, 1, 0, 1, 1, 0, 0, 1, 1, 1];
  const [ci1, ci2] = bootstrapMeans([x, x.map((v) => 2 * v)], { seed: "t" });
  assert.ok(Math.abs(ci2.lo - 2 * ci1.lo) < 1e-12 && Math.abs(ci2.hi - 2 * ci1.hi) < 1e-12);
});

Deno.test("quantiles interpolate between order statistics (type 7)", () => {
  assert.equal(quantileSorted([1, 2, 3, 4], 0.25), 1.75);
  assert.equal(quantileSorted([1, 2, 3, 4], 1), 4);
  assert.equal(quantileSorted([5], 0.975), 5);
});

Deno.test("quantiles from a bracket equal those of all the values sorted, bit for bit", () => {
  let x = 12345;
  const rnd = () => (x = (x * 48271) % 2147483647) / 2147483647;
  const alpha = (1 - 0.95) / 2;
  const ps = [alpha, 1 - alpha, 0, 0.5, 1, 0.1, 0.9, 0.999];
  const kinds: ((i: number) => number)[] = [
    () => rnd(), // distinct
    () => Math.floor(rnd() * 31) / 30, // many ties, as resample means of 0/1 values
    () => Math.floor(rnd() * 3), // almost all ties
    () => 0.5, // constant
    (i) => i, // ascending
    (i) => -i, // descending
    (i) => (i % 2 ? Infinity : -Infinity),
    (i) => (i % 7 === 0 ? NaN : rnd()), // NaN: every value sorted (NaN last)
    (i) => (i % 5 === 0 ? -0 : i % 5 === 1 ? 0 : rnd() - 0.5), // −0 before +0 in the sort order
  ];
  for (const kind of kinds) {
    for (const n of [1, 2, 3, 10, 1024, 1025, 2049, 10_000, 33_333]) {
      const values = Float64Array.from({ length: n }, (_, i) => kind(i));
      const before = values.slice();
      const sorted = values.slice().sort();
      const got = quantilesOf(values, ps);
      assert.deepEqual(values, before);
      for (let k = 0; k < ps.length; k++) {
        const expected = quantileSorted(sorted, ps[k]);
        assert.ok(Object.is(got[k], expected), `n ${n}, p ${ps[k]}: ${got[k]} != ${expected}`);
      }
    }
  }
  assert.deepEqual(quantilesOf(new Float64Array(0), [0.5]), [NaN]);
});

Deno.test('integers are grouped as toLocaleString("en-US") groups them', () => {
  const values = [
    0,
    7,
    99,
    100,
    999,
    1000,
    9999,
    10_000,
    123_456,
    1_000_000,
    12_345_678,
    -1,
    -1000,
    -999_999,
  ];
  values.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1.5, 1e21, NaN, Infinity);
  for (let k = 1; k < 1e15; k *= 7) values.push(k, k + 1, -k);
  for (const n of values) assert.equal(groupedInteger(n), n.toLocaleString("en-US"), String(n));
});

Deno.test("a paired test on identical runs gives p = 1 and a zero difference", () => {
  const a = [1, 0, 1, 0.5, 0, 1];
  const d = pairedDifference(a, [...a]);
  assert.equal(d.p, 1);
  assert.equal(d.mean_diff, 0);
  assert.equal(d.lo, 0);
  assert.equal(d.hi, 0);
  assert.equal(d.n, 6);
});

Deno.test("the exact sign-flip p-value matches hand-counted sign vectors", () => {
  // Twenty +1s: only the all-plus and all-minus vectors of 2^20 reach |sum| 20.
  assert.deepEqual(signFlipPValue(new Array(20).fill(1)), { p: 2 / 2 ** 20, method: "exact" });
  // [1, 2, 3, 0.5]: |sum| 6.5 reached by ±(1+2+3+0.5) only; ±(−1+2+3+0.5)=4.5 … fewer: 2 of 16.
  assert.equal(signFlipPValue([1, 2, 3, 0.5]).p, 2 / 16);
  // [1, 2, 3]: of 8 sign vectors only +++ and −−− reach |sum| 6.
  assert.deepEqual(signFlipPValue([1, 2, 3]), { p: 2 / 8, method: "exact" });
  // Zeros do not move the statistic: five +1 among zeros is 2 of 32.
  assert.deepEqual(signFlipPValue([1, 0, 1, 1, 0, 1, 1]), { p: 2 / 32, method: "exact" });
  // [1, −1]: observed 0, every vector reaches it.
  assert.equal(signFlipPValue([1, -1]).p, 1);
  // [2, 1]: |±2 ± 1| ≥ 3 for ++ and −− only.
  assert.equal(signFlipPValue([2, 1]).p, 0.5);
  // [3, 1, 1]: sums 5, 3, 3, 1 (and negatives): |s| ≥ 5 twice in 8.
  assert.equal(signFlipPValue([3, 1, 1]).p, 0.25);
});

Deno.test("the Monte Carlo sign-flip p-value is seeded and never zero", () => {
  const d = new Array(24).fill(1);
  const one = signFlipPValue(d, { permutations: 2000, seed: "x" });
  assert.equal(one.method, "monte-carlo");
  assert.deepEqual(one, signFlipPValue(d, { permutations: 2000, seed: "x" }));
  assert.ok(one.p > 0 && one.p <= 3 / 2001, `p ${one.p}`);
  // A balanced set of differences is far from significant.
  const balanced = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 1 : -1));
  assert.ok(signFlipPValue(balanced, { permutations: 2000 }).p > 0.9);
});

Deno.test("the minimum detectable difference is 2.80 × sd / √n", () => {
  // d = [0, 1, 0, 1]: sd = √(1/3), n = 4.
  const mde = minimumDetectableDifference([0, 1, 0, 1]);
  assert.ok(mde !== null && Math.abs(mde - MDE_FACTOR * Math.sqrt(1 / 3) / 2) < 1e-12);
  assert.ok(Math.abs(MDE_FACTOR - 2.8016) < 1e-4);
  assert.equal(minimumDetectableDifference([0, 0, 0]), 0);
  assert.equal(minimumDetectableDifference([1]), null);
});

Deno.test("intervals, differences and p-values print as the reports show them", () => {
  assert.equal(formatInterval({ mean: 0.8, lo: 0.6333333, hi: 0.9333333 }), "80.0 [63.3, 93.3]");
  assert.equal(formatDifference({ mean: 0.0333, lo: -0.05, hi: 0.1 }), "+3.3 [-5.0, +10.0]");
  assert.equal(formatP(1), "1");
  assert.equal(formatP(0.03125), "0.0313");
  assert.equal(formatP(0.00001), "< 0.001");
});

function row(question: string, method: string, em: number, status: "ok" | "invalid" = "ok"): HotpotResultRow {
  const metrics = Object.fromEntries(METRIC_NAMES.map((k) => [k, em])) as HotpotResultRow["metrics"];
  return {
    question_id: question,
    type: "bridge",
    method: method as HotpotResultRow["method"],
    generation: 0,
    answer_index: 0,
    status,
    reason: null,
    answer_text: null,
    prediction: null,
    metrics,
    input_tokens: 10,
    context_tokens: 10,
    within_cap: true,
    sp_survival: em,
    context_hash: null,
  };
}

Deno.test("answers are averaged within a question before questions are resampled; invalid counts zero", () => {
  const rows = [
    row("q1", "full", 1),
    row("q1", "full", 0),
    row("q2", "full", 1),
    row("q2", "full", 1, "invalid"),
    row("q3", "full", 1),
  ];
  assert.deepEqual([...perQuestionMeans(rows, "full", hotpotMetric("em")!, ["q1", "q2", "q3"])], [
    0.5,
    0.5,
    1,
  ]);
  const stats = hotpotStats(rows, ["full"], { resamples: 500 });
  assert.equal(stats.questions, 3);
  assert.ok(Math.abs(stats.methods[0].intervals.em.mean - 2 / 3) < 1e-12);
  assert.equal(stats.paired.length, 0);
});

Deno.test("hotpot stats pair each compressed method with Full and fusion with each baseline", () => {
  const methods = ["full", "jev", "summary", "jev+summary"];
  const rows = ["q1", "q2", "q3", "q4"].flatMap((q, i) =>
    methods.map((m, j) => row(q, m, (i + j) % 2 === 0 ? 1 : 0))
  );
  const stats = hotpotStats(rows, methods as HotpotResultRow["method"][], { resamples: 500 });
  const pairs = [...new Set(stats.paired.map((p) => `${p.b} vs ${p.a}`))];
  assert.deepEqual(pairs, [
    "jev vs full",
    "summary vs full",
    "jev+summary vs full",
    "jev+summary vs jev",
    "jev+summary vs summary",
  ]);
  // full and jev+summary agree on every question: difference 0, p = 1.
  const same = stats.paired.find((p) => p.a === "full" && p.b === "jev+summary" && p.metric === "em")!;
  assert.equal(same.mean_diff, 0);
  assert.equal(same.p, 1);
  // jev is the opposite of full on all 4 questions: d = [−1, 1, −1, 1], exact p = 1 (observed 0).
  const jev = stats.paired.find((p) => p.b === "jev" && p.metric === "em")!;
  assert.equal(jev.mean_diff, 0);
  assert.equal(jev.p_method, "exact");
  assert.deepEqual(stats, hotpotStats(rows, methods as HotpotResultRow["method"][], { resamples: 500 }));
});

Deno.test("engines intervals: recall over needles, latency over warm repeats, n/a when nothing was measured", async () => {
  const { enginesStats } = await import("../src/suites/engines/stats.ts");
  const stats = enginesStats([
    {
      engine: "all",
      status: "ok",
      needles: { total: 12, found: 12 },
      qa: { total: 4, correct: 2 },
      latency_ms: { warm: [5, 5, 5] },
    },
    {
      engine: "broken",
      status: "failed",
      needles: { total: 12, found: 0 },
      qa: null,
      latency_ms: { warm: [] },
    },
  ], { resamples: 1000 });
  const [all, broken] = stats.engines;
  assert.deepEqual(all.needle_recall, { mean: 1, lo: 1, hi: 1, n: 12 });
  assert.deepEqual(all.warm_latency_ms, { mean: 5, lo: 5, hi: 5, n: 3 });
  assert.equal(all.qa_recall!.mean, 0.5);
  assert.ok(all.qa_recall!.lo < 0.5 && all.qa_recall!.hi > 0.5);
  assert.equal(broken.needle_recall, null);
  assert.equal(broken.warm_latency_ms, null);
});

Deno.test("a pooled ratio's interval: equal to the mean's with unit denominators, zero-width when constant", () => {
  const values = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? 1 : 0));
  const ones = values.map(() => 1);
  assert.deepEqual(
    bootstrapRatio(values, ones, { resamples: 2000 }),
    bootstrapMean(values, { resamples: 2000 }),
  );
  assert.deepEqual(bootstrapRatio([1, 2, 3], [2, 4, 6]), { mean: 0.5, lo: 0.5, hi: 0.5, n: 3 });
  assert.deepEqual(bootstrapRatio([], []), { mean: NaN, lo: NaN, hi: NaN, n: 0 });
  // Pooled, not averaged: 1 of 1 and 0 of 3 facts is 25%, not 50%.
  const pooled = bootstrapRatio([1, 0], [1, 3], { resamples: 1000, seed: "r" });
  assert.equal(pooled.mean, 0.25);
  assert.deepEqual(pooled, bootstrapRatio([1, 0], [1, 3], { resamples: 1000, seed: "r" }));
  assert.ok(pooled.lo === 0 && pooled.hi === 1, `${pooled.lo} ${pooled.hi}`);
});

Deno.test("engines probe recall's interval is centred on the pooled share of facts the tables show", async () => {
  const { enginesStats } = await import("../src/suites/engines/stats.ts");
  const answers = [
    { correct: true, facts_found: 2, facts_total: 2 },
    { correct: false, facts_found: 1, facts_total: 3 },
    { correct: false, facts_found: 0, facts_total: 1 },
    { correct: true, facts_found: 1, facts_total: 1 },
  ];
  const [row] = enginesStats([{
    engine: "e",
    status: "ok",
    needles: { total: 0, found: 0 },
    qa: null,
    probes: { total: 4, correct: 2, answers },
    latency_ms: { warm: [] },
  }], { resamples: 1000 }).engines;
  assert.equal(row.probe_recall!.mean, 4 / 7, "facts found over facts expected, pooled");
  assert.ok(row.probe_recall!.lo < 4 / 7 && row.probe_recall!.hi > 4 / 7);
  assert.equal(row.needle_recall, null, "no needles: n/a");
  assert.equal(row.warm_latency_ms, null, "no warm repeats: n/a");
});

Deno.test("every resample mean is its sum in order, bit for bit, whatever the number of resamples", () => {
  // bootstrapRatio with unit denominators sums one resample at a time in index order and divides by n, as the
  // mean's resamples must (they are summed four side by side). Each level reads other order statistics of the
  // resample means; with these few resamples the levels below read every one of them.
  let state = 7;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
  for (const n of [1, 2, 3, 30]) {
    const values = Array.from({ length: n }, (_, i) => (i === 0 ? 0.1 : next() < 0.3 ? 1 : next() * 0.7));
    const ones = values.map(() => 1);
    for (const resamples of [1, 2, 3, 4, 5, 6, 7, 8, 9, 13]) {
      for (let k = 0; k <= 12; k++) {
        const level = 1 - k / 12;
        const options = { resamples, seed: `order ${n}`, level };
        assert.deepEqual(
          bootstrapMean(values, options),
          bootstrapRatio(values, ones, options),
          `${n} ${resamples}`,
        );
      }
    }
  }
  const values = Array.from({ length: 30 }, () => next());
  assert.deepEqual(bootstrapMean(values), bootstrapRatio(values, values.map(() => 1)));
});
