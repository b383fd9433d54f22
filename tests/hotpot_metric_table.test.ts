/**
 * A hotpot metric is one row of its table (src/suites/hotpot/run/metrics.ts) beside the scorer: here a row for
 * answer recall (which the scorer already computes but no listing showed) puts it in REPORT.md's and
 * report.html's results table and chart, the intervals and paired tests, `compare`'s aggregates (as a share)
 * and its per-question differences; without the row it is in none of them.
 */
import assert from "node:assert/strict";
import { HOTPOT_METRICS, scoredMetric } from "../src/suites/hotpot/run/metrics.ts";
import { aggregateHotpot } from "../src/suites/hotpot/run/aggregate.ts";
import { hotpotStats } from "../src/suites/hotpot/report/stats.ts";
import { hotpotReportMarkdown, type HotpotReportMeta } from "../src/suites/hotpot/report/report.ts";
import { hotpotReportHtml } from "../src/suites/hotpot/report/report_html.ts";
import { HOTPOT_SUITE } from "../src/suites/hotpot/definition.ts";
import { HOTPOT_COMPARE_UNITS } from "../src/suites/hotpot/report/compare_units.ts";
import { shareNames } from "../src/analysis/metrics.ts";
import { reportCorpusOf } from "../src/suites/hotpot/question_card.ts";
import type { HotpotResultRow } from "../src/suites/hotpot/run/run_suite.ts";
import { METRIC_NAMES } from "../src/suites/hotpot/run/scoring.ts";

const METHODS = ["full", "jev", "summary", "jev+summary"] as const;

function row(q: number, method: string): HotpotResultRow {
  const metrics = Object.fromEntries(METRIC_NAMES.map((k) => [k, q % 2])) as HotpotResultRow["metrics"];
  metrics.recall = method === "full" ? 0.75 : 0.25; // the metric the test lists
  return {
    question_id: `q${q}`,
    type: "bridge",
    method: method as HotpotResultRow["method"],
    generation: 0,
    answer_index: 0,
    status: "ok",
    reason: null,
    answer_text: "a",
    prediction: { answer: "a" },
    metrics,
    input_tokens: 100,
    context_tokens: 100,
    within_cap: true,
    sp_survival: 1,
    context_hash: null,
  };
}

const ROWS = Array.from({ length: 6 }, (_, q) => METHODS.map((m) => row(q, m))).flat();

function everything() {
  const aggregates = aggregateHotpot(ROWS, [...METHODS], {});
  const stats = hotpotStats(ROWS, [...METHODS], { resamples: 200 });
  const meta: HotpotReportMeta = {
    corpus: reportCorpusOf({
      format: "compaction-bench/hotpot-corpus@1",
      dataset: { path: "/data/demo.parquet", sha256: "a".repeat(64), records: 6 },
      protocol: { seed: 1, bridge: 6, comparison: 0, min_chars: 1, max_chars: 2, collection: "scripted" },
      selection: { considered: 6, removed: {}, skipped_quota_full: 0 },
      questions: [],
      gold: {},
    }),
    models: { mode: "reference", chat_model: "chat-1", decision_model: "jev-1", note: "" },
    tokenizer: "qwen3",
    inputCap: 3600,
    reserve: 64,
    compressions: 1,
    answers: 1,
    stats,
  };
  const compared = HOTPOT_SUITE.compareMetrics!({ aggregate: aggregates, results: ROWS });
  return {
    markdown: hotpotReportMarkdown(aggregates, meta),
    html: hotpotReportHtml(aggregates, meta),
    stats,
    compared: compared.get("full")!,
    shares: shareNames(HOTPOT_SUITE.metrics!),
    units: HOTPOT_COMPARE_UNITS.metrics.map(([name]) => name),
  };
}

Deno.test("one table row lists a scored metric in the reports, the stats and compare", () => {
  const before = everything();
  assert.ok(!before.markdown.includes("answer recall"));
  assert.ok(!before.html.includes("answer recall"));
  assert.equal(before.stats.methods[0].intervals.recall, undefined);
  assert.equal(before.compared.recall, undefined);
  assert.ok(!before.units.includes("recall"));

  HOTPOT_METRICS.push(
    scoredMetric("recall", "answer recall", {
      table: true,
      chart: true,
      intervals: true,
      paired: true,
      compare: true,
      units: true,
    }),
  );
  try {
    const after = everything();
    // REPORT.md: a results column (75.0 for full) and an interval column; the paired table names it.
    assert.match(after.markdown, /\| method \| EM \|.*\| gold SP kept \| answer recall \| valid\/planned \|/);
    assert.match(after.markdown, /\| full \|( [^|]+ \|){7} 75 \| 6\/6 \|/);
    assert.match(after.markdown, /answer recall \(95% CI\)/);
    assert.match(after.markdown, /\| jev vs full \| answer recall \| 6 \|/);
    // report.html: the table and the chart's series and title.
    assert.match(after.html, /<th[^>]*>answer recall<\/th>/);
    assert.match(after.html, /EM, F1, joint F1, gold SP kept and answer recall per method \(%\)/);
    // The stats: an interval per method and a paired test per pair.
    assert.equal(after.stats.methods[0].intervals.recall.mean, 0.75);
    assert.ok(after.stats.paired.some((p) => p.metric === "recall" && p.a === "full" && p.b === "jev"));
    // compare: the aggregate (a share, shown in points) and the per-question differences.
    assert.equal(after.compared.recall, 0.75);
    assert.ok(after.shares.has("recall"));
    assert.ok(after.units.includes("recall"));
  } finally {
    HOTPOT_METRICS.pop();
  }
});
