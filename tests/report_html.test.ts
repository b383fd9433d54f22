import assert from "node:assert/strict";
import { barChart, lineChart } from "../src/report/charts.ts";
import { enginesReportHtml } from "../src/suites/engines/report_html.ts";
import { hotpotReportHtml } from "../src/suites/hotpot/report/report_html.ts";
import { escapeHtml, safeHtml } from "../src/report/html.ts";
import { sweepReportHtml } from "../src/suites/sweep/report_html.ts";
import type { EnginesReportMeta } from "../src/suites/engines/report.ts";
import {
  engineHtmlTableRows,
  engineLabel,
  enginesReportMarkdown,
  engineTableRows,
} from "../src/suites/engines/report.ts";
import type { EngineResult } from "../src/suites/engines/run.ts";
import type { HotpotMethodAggregate } from "../src/suites/hotpot/run/aggregate.ts";
import type { HotpotMethod } from "../src/suites/hotpot/run/methods.ts";
import { hotpotReportMarkdown, type HotpotReportMeta } from "../src/suites/hotpot/report/report.ts";
import type { HotpotMetrics } from "../src/suites/hotpot/run/scoring.ts";
import type { SweepKindAggregate } from "../src/suites/sweep/aggregate.ts";
import { sweepReportMarkdown, type SweepReportMeta } from "../src/suites/sweep/report.ts";
import { DEFAULT_SWEEP_RUN } from "../src/suites/sweep/run_suite.ts";
import { reportCorpusOf } from "../src/suites/hotpot/question_card.ts";

const EVIL = "<script>alert('x')</script>";

// ---- inputs shaped like a real run's (numbers from a demo run) ----

function metrics(em: number, f1: number, sp: number, joint: number): HotpotMetrics {
  return {
    em,
    f1,
    prec: f1,
    recall: f1,
    sp_em: sp / 2,
    sp_f1: sp,
    sp_prec: sp,
    sp_recall: sp,
    joint_em: Math.min(em, joint),
    joint_f1: joint,
    joint_prec: joint,
    joint_recall: joint,
  };
}

function hotpotAggregate(
  method: string,
  em: number,
  tokens: number | null,
  extra: Partial<HotpotMethodAggregate> = {},
): HotpotMethodAggregate {
  return {
    method: method as HotpotMethod,
    metrics: metrics(em, em + 0.05, 0.65, em / 2),
    em_exact: `${Math.round(em * 30)}/30`,
    sp_survival: 0.85,
    valid: 120,
    planned: 120,
    input_tokens: { mean: tokens, total: tokens === null ? 0 : Math.round(tokens * 120) },
    context_tokens_mean: tokens,
    over_cap: 0,
    compression_usage: { calls: 60, input_tokens: 190102, output_tokens: 2032 },
    em_by_type: { bridge: em / 2, comparison: em * 1.5 },
    models: { chat: { requested: "chat-1", answered: { "chat-1-served": 240 } } },
    ...extra,
  };
}

const HOTPOT = [
  hotpotAggregate("full", 1 / 30, 3139.1333),
  hotpotAggregate("jev", 1 / 30, 2651.53),
  hotpotAggregate("summary", 1 / 30, null, { valid: 0, over_cap: 3 }),
  hotpotAggregate("jev+summary", 2 / 30, 1864),
];

function hotpotMeta(mode: string, path = "/data/hotpot/demo.parquet"): HotpotReportMeta {
  return {
    corpus: reportCorpusOf({
      format: "compaction-bench/hotpot-corpus@1",
      dataset: {
        path,
        sha256: "a166b1371234c4269493493ac51f2ec7c139abd8d1d164a8af16566535c67d6f",
        records: 48,
      },
      protocol: {
        seed: 20261016,
        bridge: 15,
        comparison: 15,
        min_chars: 6000,
        max_chars: 32000,
        collection: "scripted",
      },
      selection: { considered: 31, removed: { chars_out_of_range: 1 }, skipped_quota_full: 0 },
      questions: [
        {
          id: "q1",
          type: "bridge",
          level: "hard",
          question: "Which?",
          context: [],
          collection: "scripted",
          valid: false,
          reason: `read_file failed: ${EVIL}`,
          trajectory: [],
        },
      ],
      gold: {},
    }),
    models: { mode, chat_model: "chat-1", decision_model: "jev-1", note: "a note" },
    tokenizer: "qwen3 (42358432a681)",
    inputCap: 3600,
    reserve: 64,
    compressions: 2,
    answers: 2,
  };
}

function sweepAggregate(kind: string, fact: number, repair: number, overBudget = 0): SweepKindAggregate {
  const valid = overBudget > 0 && kind !== "full" ? 0 : 15;
  const tokens = 2400 + 300 * kind.length;
  return {
    kind,
    fact_score: fact,
    repair_pass_share: repair,
    valid,
    planned: 15,
    over_budget: overBudget,
    context_tokens_mean: tokens,
    input_tokens: { mean: valid ? tokens : null, total: valid ? tokens * 15 : 0 },
    models: { chat: { requested: "chat-1", answered: { "chat-1-served": 15 } } },
  };
}

const SWEEP = [
  sweepAggregate("full", 0.6, 1, 15),
  sweepAggregate("S", 0.4000000000000001, 0),
  sweepAggregate("S+Top1", 0.4, 0.2),
  sweepAggregate("S+Top2", 0.3, 1 / 3),
  sweepAggregate("S+Top3", 0, 0, 15),
];

function sweepMeta(mode = "reference", name = "payments-double-charge"): SweepReportMeta {
  return {
    fixture: {
      name,
      hash: "221eba2e902f106837949640ed78d1a88cf1edaff5c537c112bb48c21ca0a553",
      units: 10,
      facts: 10,
    },
    models: { mode, chat_model: "chat-1", decision_model: "jev-1", note: "a note" },
    tokenizer: "qwen3 (42358432a681)",
    options: { ...DEFAULT_SWEEP_RUN, topN: [1, 2, 3] },
    compressionUsage: { calls: 10, input_tokens: 79025, output_tokens: 9495 },
    reusedCompression: 0,
  };
}

function qaSummary(total: number, correct: number) {
  return {
    total,
    correct,
    recall: correct / total,
    facts_total: total,
    facts_found: correct,
    by_type: {},
    not_in_context: total - correct,
    answers: [],
    usage: usage(total),
  };
}

function latency(
  l: { cold: number | null; warm_median: number | null; warm_p95: number | null; warm: number[] },
): EngineResult["latency_ms"] {
  const mean = l.warm.length === 0 ? null : l.warm.reduce((a, b) => a + b, 0) / l.warm.length;
  return { ...l, warm_mean: mean, warm_excluded_retried: 0, cold_retried_attempts: 0 };
}

function engineResult(engine: string, overrides: Partial<EngineResult> = {}): EngineResult {
  return {
    engine,
    spec: engine,
    kind: engine === "hermes-like" ? "reimplementation" : engine.startsWith("exec:") ? "outside" : "built-in",
    status: "ok",
    reason: null,
    budget_tokens: 10231,
    budget: "25%",
    input_tokens: 40925,
    output_tokens: 10193,
    saved_tokens: 30732,
    savings_pct: 75.09346365302382,
    within_budget: true,
    messages_in: 640,
    messages_out: 159,
    tool_pairing_valid: true,
    needles: { total: 12, found: 3, recall: 0.25, found_ids: [] },
    qa: qaSummary(12, 3),
    probes: null,
    latency_ms: latency({
      cold: 8.380673999999999,
      warm_median: 5.858645999,
      warm_p95: 6.434151,
      warm: [5.8, 5.5, 6.4],
    }),
    deterministic: true,
    usage: usage(0),
    usage_all_calls: usage(0),
    qa_usage: usage(12),
    window_hash: "806967c15e08",
    window: null,
    records: [],
    ...overrides,
  };
}

function usage(calls: number) {
  return { calls, input_tokens: 100 * calls, output_tokens: 10 * calls };
}

const FAILED = engineResult("exec:./broken", {
  status: "failed",
  reason: "exit code 3",
  output_tokens: null,
  saved_tokens: null,
  savings_pct: null,
  within_budget: null,
  messages_out: null,
  tool_pairing_valid: null,
  needles: { total: 12, found: 0, recall: null, found_ids: [] },
  qa: null,
  latency_ms: latency({ cold: null, warm_median: null, warm_p95: null, warm: [] }),
  usage: null,
});

const ENGINES = [
  engineResult("full", {
    savings_pct: 0,
    latency_ms: latency({ cold: 0.1, warm_median: 0.02, warm_p95: 0.04, warm: [] }),
  }),
  engineResult("truncate"),
  engineResult("hermes-like", {
    latency_ms: latency({ cold: 173.2, warm_median: 42.4, warm_p95: 43, warm: [] }),
  }),
  FAILED,
];

const ENGINES_META: EnginesReportMeta = {
  transcript: "generated (turns 200, needles 12, words per message 60)",
  transcriptHash: "19c5f7ebb6d22ce20215afc338582e95e5180224d81a9b3f51e7b3c88a872e2f",
  tokenizer: "qwen3 (42358432a681)",
  chatModel: "chat-1",
  decisionModel: "jev-1",
  reference: true,
  repeats: 3,
};

// ---- small readers of the generated markup ----

function unescape(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll(
    "&#39;",
    "'",
  )
    .replaceAll("&amp;", "&");
}

/** The body rows of the page's n-th table, as cell texts. */
function tableRows(page: string, index = 0): string[][] {
  const table = page.split("<table>")[index + 1].split("</table>")[0];
  const body = table.split("<tbody>")[1];
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
    [...m[1].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => unescape(c[1]))
  );
}

/** The body rows of the first Markdown table after `heading` (or of the first one). */
function markdownRows(markdown: string, heading = ""): string[][] {
  const lines = markdown.slice(markdown.indexOf(heading)).split("\n");
  const start = lines.findIndex((l) => l.startsWith("| ---") || l.startsWith("| :"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("|")) break;
    rows.push(line.slice(2, -2).split(" | "));
  }
  return rows;
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

function assertSelfContained(page: string): void {
  assert.ok(page.startsWith("<!DOCTYPE html>"));
  assert.equal(count(page, "<svg"), count(page, "</svg>"));
  for (const forbidden of ["<script", "<link", "<img", "<iframe", "http://", "https://", "url(", "@import"]) {
    assert.equal(page.includes(forbidden), false, `page contains ${forbidden}`);
  }
}

// ---- tests ----

Deno.test("escaping covers the five HTML-special characters and the template tag escapes strings", () => {
  assert.equal(escapeHtml(`<a href="x">&'</a>`), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  const inner = safeHtml`<b>${"<i>"}</b>`;
  assert.equal(
    safeHtml`<p>${inner}${[EVIL, 3, null]}</p>`.markup,
    `<p><b>&lt;i&gt;</b>${escapeHtml(EVIL)}3</p>`,
  );
});

Deno.test("hotpot page has a results row per method, two charts and the reference banner", () => {
  const page = hotpotReportHtml(HOTPOT, hotpotMeta("reference"));
  assertSelfContained(page);
  assert.deepEqual(tableRows(page).map((r) => r[0]), ["full", "jev", "summary", "jev+summary"]);
  assert.equal(count(page, "<svg"), 2);
  assert.match(page, /<strong>Reference model\.<\/strong>/);
  assert.match(page, /not an LLM/);
  assert.match(page, /ceiling 3600/);
  assert.match(page, /Predeclared hypothesis: Jev\+Summary exceeds both compressed baselines/);
  // The verdict heads the page: the hypothesis comes before the run's facts and the results.
  assert.ok(page.indexOf("<h2>Hypothesis</h2>") < page.indexOf("<h2>Run</h2>"));
  // A method without input tokens shows n/a in the token chart, not a zero bar.
  assert.match(page, /<title>input tok mean, summary: n\/a<\/title>/);
  assert.match(page, /3 over cap/);
  assert.equal(hotpotReportHtml(HOTPOT, hotpotMeta("live")).includes("Reference model."), false);
});

Deno.test("hotpot tables show the same cells as REPORT.md", () => {
  const page = hotpotReportHtml(HOTPOT, hotpotMeta("reference"));
  const markdown = hotpotReportMarkdown(HOTPOT, hotpotMeta("reference"));
  assert.deepEqual(tableRows(page, 0), markdownRows(markdown, "## Results"));
  assert.deepEqual(tableRows(page, 1), markdownRows(markdown, "### EM by question type"));
  assert.deepEqual(tableRows(page, 2), markdownRows(markdown, "## Compression usage"));
  assert.deepEqual(tableRows(page, 0)[0], [
    "full",
    "3.3",
    "8.3",
    "32.5",
    "65",
    "1.7",
    "1.7",
    "85",
    "120/120",
    "3139",
    "376696",
    "0",
  ]);
});

Deno.test("sweep page has a row per kind, a line chart of N with S and Full references, and over-budget counts", () => {
  const page = sweepReportHtml(SWEEP, sweepMeta());
  assertSelfContained(page);
  assert.deepEqual(tableRows(page).map((r) => r[0]), ["full", "S", "S+Top1", "S+Top2", "S+Top3"]);
  assert.deepEqual(tableRows(page), markdownRows(sweepReportMarkdown(SWEEP, sweepMeta())));
  assert.equal(count(page, "<svg"), 2);
  assert.equal(count(page, "<polyline"), 2, "one line per series");
  for (const label of ["S fact 40", "S repair 0", "Full fact 60", "Full repair 100", "ceiling 3800"]) {
    assert.ok(page.includes(label), label);
  }
  assert.ok(page.includes(">15/15 over budget<"), "over-budget count under S+Top3");
  assert.match(page, /<strong>Reference model\.<\/strong>/);
});

Deno.test("sweep page without Top-N kinds says so instead of drawing an empty line chart", () => {
  const page = sweepReportHtml(SWEEP.slice(0, 2), sweepMeta("live"));
  assert.equal(count(page, "<svg"), 1);
  assert.match(page, /No S\+Top N contexts in this run/);
  assert.equal(page.includes("Reference model."), false);
});

Deno.test("engines page has a row per engine, three charts, and the same cells as REPORT.md", () => {
  const page = enginesReportHtml(ENGINES, ENGINES_META);
  assertSelfContained(page);
  assert.deepEqual(tableRows(page).map((r) => r[0]), [
    "full",
    "truncate",
    "hermes-like (reimplementation)",
    "exec:./broken",
  ]);
  // The page joins related columns (to fit a 1,400-pixel window) of the same cells as REPORT.md's table.
  assert.deepEqual(markdownRows(enginesReportMarkdown(ENGINES, ENGINES_META)), engineTableRows(ENGINES));
  assert.deepEqual(tableRows(page), engineHtmlTableRows(ENGINES));
  assert.equal(count(page, "<svg"), 3);
  assert.match(page, /<h3>Failures<\/h3>/);
  assert.match(page, /<code>exec:\.\/broken<\/code> at 25%: exit code 3/);
  assert.match(page, /log scale/);
  assert.match(page, /<strong>Reference model\.<\/strong>/);
});

Deno.test("engines page shows n/a for null recall, never a 0 or 100 bar", () => {
  const noNeedles = ENGINES.map((r) => ({
    ...r,
    needles: { total: 0, found: 0, recall: null, found_ids: [] },
    qa: null,
  }));
  const page = enginesReportHtml(noNeedles, ENGINES_META);
  for (const r of noNeedles) {
    const label = engineLabel(r);
    assert.ok(page.includes(`<title>needles (verbatim), ${label}: n/a</title>`), label);
    assert.ok(page.includes(`<title>QA, ${label}: n/a</title>`), label);
    assert.equal(page.includes(`<title>needles (verbatim), ${label}: 0.0%</title>`), false);
  }
  assert.deepEqual(tableRows(page).map((r) => [r[7], r[8], r[9]]), [
    ["n/a", "n/a", "n/a"],
    ["n/a", "n/a", "n/a"],
    ["n/a", "n/a", "n/a"],
    ["-", "n/a", "n/a"],
  ]);
  // The failed engine's bars are n/a too, and its label carries a "failed" note.
  assert.ok(page.includes("<title>saved, exec:./broken: n/a</title>"));
  assert.ok(page.includes(">failed</text>"));
});

Deno.test("engines page adds a probes series only when probes were asked", () => {
  const withProbes = ENGINES.map((r, i) =>
    i === 0
      ? {
        ...r,
        probes: qaSummary(4, 1),
      }
      : r
  );
  assert.equal(enginesReportHtml(ENGINES, ENGINES_META).includes("<title>probes, "), false);
  const page = enginesReportHtml(withProbes, ENGINES_META);
  assert.ok(page.includes("<title>probes, full: 25.0%</title>"));
  assert.ok(page.includes("<title>probes, truncate: n/a</title>"));
});

Deno.test("every user-facing string is escaped: no script survives in any page", () => {
  const hotpot = hotpotReportHtml(
    HOTPOT.map((a, i) => i === 0 ? { ...a, method: EVIL as HotpotMethod } : a),
    hotpotMeta("reference", `/data/${EVIL}.parquet`),
  );
  const sweep = sweepReportHtml([...SWEEP, sweepAggregate(EVIL, 0.1, 0.1)], sweepMeta("reference", EVIL));
  const engines = enginesReportHtml(
    [engineResult(EVIL), { ...FAILED, reason: EVIL }],
    { ...ENGINES_META, transcript: EVIL, chatModel: EVIL },
  );
  // A hostile answering model name (a provider's reply), also in the mid-run change banner.
  const rolled = { chat: { requested: "chat-1", answered: { [EVIL]: 3, "chat-1": 2 } } };
  const hotpotModels = hotpotReportHtml(HOTPOT.map((a) => ({ ...a, models: rolled })), hotpotMeta("live"));
  const sweepModels = sweepReportHtml(SWEEP.map((a) => ({ ...a, models: rolled })), sweepMeta("live"));
  const enginesModels = enginesReportHtml([engineResult("x")], {
    ...ENGINES_META,
    chatModel: "chat-1",
    decisionModel: "jev-1",
    answering: rolled,
  });
  for (const page of [hotpotModels, sweepModels, enginesModels]) {
    assert.ok(page.includes("Answering model changed"), "the change is said");
    assert.ok(count(page, escapeHtml(EVIL)) >= 2, "in the banner and the models line");
  }
  for (const page of [hotpot, sweep, engines, hotpotModels, sweepModels, enginesModels]) {
    assert.equal(page.includes("<script"), false);
    assert.ok(page.includes("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  }
  // The escaped name reaches the table and the charts (bar titles and axis labels).
  assert.ok(count(engines, escapeHtml(EVIL)) >= 5);
});

Deno.test("the same input gives byte-identical pages", () => {
  const clone = <T>(x: T): T => structuredClone(x);
  assert.equal(
    hotpotReportHtml(HOTPOT, hotpotMeta("reference")),
    hotpotReportHtml(clone(HOTPOT), hotpotMeta("reference")),
  );
  assert.equal(sweepReportHtml(SWEEP, sweepMeta()), sweepReportHtml(clone(SWEEP), sweepMeta()));
  assert.equal(
    enginesReportHtml(ENGINES, ENGINES_META),
    enginesReportHtml(clone(ENGINES), clone(ENGINES_META)),
  );
});

Deno.test("a bar chart is one svg with a bar per value and n/a text for null", () => {
  const svg = barChart({
    title: "t",
    categories: ["a", "b", "c"],
    series: [{ name: "x", values: [1, null, -2] }, { name: "y", values: [3, 4, 5] }],
    format: String,
    yLabel: "units",
  }).markup;
  assert.equal(count(svg, "<svg"), 1);
  assert.equal(count(svg, "<rect x="), 5 + 2, "five bars and two legend swatches");
  assert.ok(svg.includes("<title>x, b: n/a</title>"));
  assert.ok(svg.includes("<title>x, c: -2</title>"));
});

Deno.test("a log-scale bar chart spans whole decades and keeps zero and tiny values on its floor", () => {
  const svg = barChart({
    title: "latency",
    categories: ["a", "b", "c"],
    series: [{ name: "ms", values: [0.02, 173, 0] }],
    format: String,
    yLabel: "ms",
    scale: "log",
  }).markup;
  const ticks = [...svg.matchAll(/text-anchor="end" font-size="11"[^>]*>([^<]+)</g)].map((m) => m[1]);
  assert.deepEqual(ticks, ["0.01", "0.1", "1", "10", "100", "1000"]);
  assert.ok(svg.includes("<title>ms, c: 0</title>"));
});

Deno.test("a line chart draws one polyline per series, breaks at null and labels reference lines apart", () => {
  const svg = lineChart({
    title: "t",
    x: [1, 2, 3],
    xTick: (n) => `Top${n}`,
    xLabel: "N",
    yLabel: "%",
    series: [{ name: "a", values: [10, null, 30] }, { name: "b", values: [5, 6, 7] }],
    format: String,
    max: 100,
    referenceLines: [{ label: "r1", value: 50 }, { label: "r2", value: 50, series: 1 }],
  }).markup;
  assert.equal(count(svg, "<polyline"), 1, "series a has no two consecutive values; b has one line");
  assert.ok(svg.includes("<title>a: n/a</title>"));
  const ys = [...svg.matchAll(/y="([0-9.]+)"[^>]*>(r[12])</g)].map((m) => Number(m[1]));
  assert.equal(ys.length, 2);
  assert.ok(Math.abs(ys[0] - ys[1]) >= 13, "labels of equal lines do not overlap");
});

Deno.test("engines page with several budgets draws a recall curve per engine at its retained tokens", () => {
  const at = (r: EngineResult, budget: string, budgetTokens: number, out: number, recall: number | null) => ({
    ...r,
    budget,
    budget_tokens: budgetTokens,
    output_tokens: out,
    needles: { ...r.needles, recall },
  });
  const results = [
    at(ENGINES[1], "10%", 4092, 4035, 0),
    at(ENGINES[2], "10%", 4092, 4073, 0.25),
    at(ENGINES[1], "50%", 20462, 20406, 0.5),
    at(ENGINES[2], "50%", 20462, 14748, null),
  ];
  const page = enginesReportHtml(results, ENGINES_META);
  assertSelfContained(page);
  assert.match(page, /<h2>Recall at retained tokens<\/h2>/);
  assert.ok(page.includes("<title>truncate, budget 50%: 50.0% at 20406 tokens</title>"));
  assert.ok(page.includes("<title>hermes-like (reimplementation), budget 50%: n/a</title>"));
  assert.equal(page, enginesReportHtml(results, ENGINES_META), "the same input gives the same bytes");
  const markdown = enginesReportMarkdown(results, ENGINES_META);
  assert.match(markdown, /\| truncate \| 4035 \/ 0\.0% \/ 25\.0% \| 20406 \/ 50\.0% \/ 25\.0% \|/);
});

Deno.test("engines page shows the 95% CI table of REPORT.md and draws the intervals as error bars", () => {
  const page = enginesReportHtml(ENGINES, ENGINES_META);
  assertSelfContained(page);
  assert.match(page, /<h3>95% CI<\/h3>/);
  const ciTable = page.split("<h3>95% CI</h3>")[1];
  const rows = tableRows(ciTable);
  assert.deepEqual(rows, markdownRows(enginesReportMarkdown(ENGINES, ENGINES_META), "### 95% CI"));
  // truncate: 3 of 12 needles; warm repeats 5.8, 5.5, 6.4 ms.
  assert.match(rows[1][2], /^25\.0 \[\d+\.\d, \d+\.\d\]$/);
  assert.match(rows[1][5], /^5\.9 \[5\.\d, 6\.\d\]$/);
  assert.equal(rows[3][2], "n/a", "a failed engine has no interval");
  assert.match(page, /<title>needles \(verbatim\), truncate: 25\.0% \[\d+\.\d%, \d+\.\d%\]<\/title>/);
  assert.match(page, /<title>warm mean, truncate: 5\.90 \[5\.\d\d, 6\.\d\d\]<\/title>/);
});

Deno.test("engines budget curves carry each point's 95% CI as an error bar", () => {
  const results = [
    { ...ENGINES[1], budget: "10%", budget_tokens: 4092, output_tokens: 4035 },
    { ...ENGINES[1], budget: "50%", budget_tokens: 20462, output_tokens: 20406 },
  ];
  const page = enginesReportHtml(results, ENGINES_META);
  assert.equal(count(page, "<title>truncate, budget 10%: 95% CI ["), 2, "needle and QA curves");
  assert.equal(count(page, "<title>truncate, budget 50%: 95% CI ["), 2);
});
