/**
 * The cost of the analysis added to every report: the hotpot bootstrap (10,000 resamples × 4 methods × 6
 * metrics, plus 15 paired comparisons with their sign-flip tests) on demo-sized results, and the explorer
 * (data, packing and the whole report.html). Synthetic rows shaped like the demo's (30 questions × 4 methods
 * × 2 generations × 2 answers, seeded 0/1 metrics). Target: the whole analysis ≤ 1 s, so the demo stays
 * within its 15 s.
 *
 * Usage: `deno run -A bench/analysis.ts`
 *
 * @module
 */
import { hotpotStats } from "../src/suites/hotpot/report/stats.ts";
import { SeededRandom } from "../src/data/hotpot_prng.ts";
import { HOTPOT_METHODS } from "../src/suites/hotpot/run/methods.ts";
import type { HotpotResultRow } from "../src/suites/hotpot/run/run_suite.ts";
import { METRIC_NAMES } from "../src/suites/hotpot/run/scoring.ts";

/** The target for the analysis of one demo-sized hotpot run (ms). */
export const ANALYSIS_TARGET_MS = 1000;

const rng = new SeededRandom("bench/analysis");
const rows: HotpotResultRow[] = [];
for (let q = 0; q < 30; q++) {
  for (const method of HOTPOT_METHODS) {
    for (let g = 0; g < 2; g++) {
      for (let a = 0; a < 2; a++) {
        const metrics = Object.fromEntries(METRIC_NAMES.map((k) => [k, rng.next() < 0.7 ? 1 : 0]));
        rows.push({
          question_id: `q${q}`,
          type: q % 2 ? "bridge" : "comparison",
          method,
          generation: g,
          answer_index: a,
          status: "ok",
          reason: null,
          answer_text: "x",
          prediction: null,
          metrics: metrics as HotpotResultRow["metrics"],
          input_tokens: 1000,
          context_tokens: 1000,
          within_cap: true,
          sp_survival: rng.next(),
          context_hash: null,
        });
      }
    }
  }
}
hotpotStats(rows, [...HOTPOT_METHODS], { resamples: 200 }); // warm-up (JIT)
const times: number[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  hotpotStats(rows, [...HOTPOT_METHODS]);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const median = times[1];
console.log(
  `hotpot bootstrap + paired tests, 10,000 resamples, 30 questions × 4 methods: median ${
    median.toFixed(0)
  } ms ` +
    `(runs ${times.map((t) => t.toFixed(0)).join(", ")} ms); target ≤ ${ANALYSIS_TARGET_MS} ms: ${
      median <= ANALYSIS_TARGET_MS ? "met" : "NOT met"
    }`,
);
