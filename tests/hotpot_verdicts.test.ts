/**
 * The hotpot numbers the protocol's rules depend on: the hypothesis compares exact EM rationals (at exactly 5
 * points, just inside, just outside); "gold SP kept" reads decoded tool results, on real HotpotQA records with
 * quotes and markup, alike for every method, and is zero for invalid conditions; "over cap" counts contexts;
 * supporting-fact ids written as decimals earn no credit.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadHotpotJson } from "../src/data/hotpot_json.ts";
import { aggregateHotpot } from "../src/suites/hotpot/run/aggregate.ts";
import { METRIC_NAMES, predictionFromModelAnswer, scoreQuestion } from "../src/suites/hotpot/run/scoring.ts";
import { collectScripted } from "../src/suites/hotpot/collect/collect_question.ts";
import { exactQuestionMean, Rational } from "../src/suites/hotpot/run/exact_mean.ts";
import { hypothesisVerdict, hypothesisVerdictText } from "../src/suites/hotpot/report/report.ts";
import {
  compactedContext,
  fullContext,
  type HotpotMethod,
  questionUnits,
} from "../src/suites/hotpot/run/methods.ts";
import type { HotpotResultRow } from "../src/suites/hotpot/run/run_suite.ts";
import { readableText, supportSurvival } from "../src/suites/hotpot/run/support_kept.ts";
import { scoreHotpotFiles } from "../src/cli/hotpot/score.ts";
import { ROOT } from "./helpers/spawn.ts";

const REAL20 = join(ROOT, "tests/fixtures/shared_data/hotpot_dev_real20.official.json");

function row(
  method: HotpotMethod,
  question: number,
  em: 0 | 1,
  extra: Partial<HotpotResultRow> = {},
): HotpotResultRow {
  const metrics = Object.fromEntries(METRIC_NAMES.map((k) => [k, 0])) as HotpotResultRow["metrics"];
  metrics.em = em;
  return {
    question_id: `q${String(question).padStart(4, "0")}`,
    type: "bridge",
    method,
    generation: 0,
    answer_index: 0,
    status: "ok",
    reason: null,
    answer_text: "",
    prediction: null,
    metrics,
    input_tokens: 100,
    context_tokens: 100,
    within_cap: true,
    sp_survival: 1,
    context_hash: `${method}-${question}`,
    ...extra,
  };
}

/** Rows of `n` questions (one answer each) where the first `correct[m]` questions are right for method m. */
function rowsWith(n: number, correct: Record<HotpotMethod, number>): HotpotResultRow[] {
  const rows: HotpotResultRow[] = [];
  for (const method of Object.keys(correct) as HotpotMethod[]) {
    for (let q = 0; q < n; q++) rows.push(row(method, q, q < correct[method] ? 1 : 0));
  }
  return rows;
}

const METHODS: HotpotMethod[] = ["full", "jev", "summary", "jev+summary"];

function verdictFor(n: number, correct: Record<HotpotMethod, number>) {
  const aggregates = aggregateHotpot(rowsWith(n, correct), METHODS, {});
  return { verdict: hypothesisVerdict(aggregates)!, aggregates };
}

Deno.test("rationals are exact: 0.55 − 0.50 is exactly 1/20", () => {
  assert.notEqual(0.55 - 0.5, 0.05, "floating point is not");
  assert.equal(Rational.parse("11/20").sub(Rational.parse("1/2")).compare(new Rational(1n, 20n)), 0);
  assert.equal(new Rational(6n, -8n).toString(), "-3/4");
  assert.equal(Rational.parse("4").toString(), "4");
  assert.throws(() => Rational.parse("0.5"), SyntaxError);
  // Questions weigh equally whatever their answer counts: (1/2 + 1/1) / 2 = 3/4.
  const mean = exactQuestionMean(
    [{ question_id: "a", v: 1 }, { question_id: "a", v: 0 }, { question_id: "b", v: 1 }],
    (r) => r.v,
  );
  assert.equal(mean.toString(), "3/4");
});

Deno.test("the hypothesis holds at exactly 5 points below Full (Full 0.55, fusion 0.50)", () => {
  const { verdict, aggregates } = verdictFor(20, { "full": 11, "jev": 9, "summary": 9, "jev+summary": 10 });
  assert.equal(aggregates[0].em_exact, "11/20");
  assert.equal(aggregates[3].em_exact, "1/2");
  assert.equal(verdict.gap.toString(), "1/20");
  assert.equal(verdict.within, true);
  assert.equal(verdict.beats, true);
  assert.equal(verdict.holds, true);
  const text = hypothesisVerdictText(aggregates);
  assert.match(
    text,
    /is 5\.0 points below Full \(within 5 points of it; compared exactly: Full − Jev\+Summary = 1\/20\)/,
  );
  assert.match(text, /The observed numbers agree with it/);
});

Deno.test("the hypothesis holds just inside 5 points and fails just outside", () => {
  const inside = verdictFor(200, { "full": 110, "jev": 90, "summary": 90, "jev+summary": 101 }).verdict;
  assert.equal(inside.gap.toString(), "9/200");
  assert.equal(inside.holds, true);
  const outside = verdictFor(200, { "full": 110, "jev": 90, "summary": 90, "jev+summary": 99 }).verdict;
  assert.equal(outside.gap.toString(), "11/200");
  assert.equal(outside.within, false);
  assert.equal(outside.holds, false);
  // A tie with a baseline is not "exceeds".
  const tie = verdictFor(20, { "full": 11, "jev": 10, "summary": 9, "jev+summary": 10 }).verdict;
  assert.equal(tie.within, true);
  assert.equal(tie.beats, false);
  assert.equal(tie.holds, false);
  assert.equal(hypothesisVerdict([{ method: "full", em_exact: "1" }]), null);
});

Deno.test("gold SP kept is zero for invalid conditions and over cap counts contexts, not answers", () => {
  const rows = [
    row("full", 0, 1, { within_cap: false, context_hash: "c0" }),
    row("full", 0, 1, { within_cap: false, context_hash: "c0", answer_index: 1 }),
    row("full", 1, 1, { within_cap: false, context_hash: "c1" }),
    row("full", 1, 1, { within_cap: false, context_hash: "c1", answer_index: 1 }),
    row("jev", 0, 0, { status: "invalid", sp_survival: 1 }),
    row("jev", 1, 1, { sp_survival: 1 }),
  ];
  const [full, jev] = aggregateHotpot(rows, ["full", "jev"], {});
  assert.equal(full.over_cap, 2, "two contexts over the ceiling, four answers");
  assert.equal(jev.sp_survival, 0.5, "the invalid condition counts zero, not its context's share");
  assert.equal(jev.over_cap, 0);
});

Deno.test("gold SP kept reads decoded tool results: real HotpotQA records with quotes score alike for every method", async () => {
  const records = await loadHotpotJson(REAL20);
  const quoted = records.filter((r) =>
    r.supporting_facts.some((f) =>
      /["\\<]/.test(r.context.find((a) => a.title === f.title)?.sentences[f.sent_id] ?? "")
    )
  );
  assert.ok(quoted.length >= 8, `${quoted.length} real records with quotes in supporting sentences`);
  const dir = await Deno.makeTempDir({ prefix: "sp_kept_" });
  try {
    let rawMisses = 0;
    for (const [i, record] of quoted.entries()) {
      const collection = await collectScripted(record, join(dir, String(i)));
      const question = {
        id: record.id,
        question: record.question,
        context: record.context,
        trajectory: collection.messages,
      };
      const gold = { supporting_facts: record.supporting_facts };
      // Full keeps everything, and so does a compacted context holding every unit: both keep all gold SP.
      assert.equal(supportSurvival(fullContext(question), question, gold), 1, record.id);
      const everything = compactedContext(question, questionUnits(question), "");
      assert.equal(supportSurvival(everything, question, gold), 1, record.id);
      // The raw JSON text escapes the quotes: a verbatim search there misses sentences.
      const raw = fullContext(question).map((m) => m.content ?? "").join("\n");
      for (const f of record.supporting_facts) {
        const sentence = record.context.find((a) => a.title === f.title)!.sentences[f.sent_id].trim();
        if (!raw.includes(sentence)) rawMisses++;
      }
    }
    assert.ok(rawMisses > 0, "the records exercise escaping");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.equal(
    readableText({ role: "tool", content: '{"content": "say \\"hi\\"", "truncated": false}' }),
    'say "hi"',
  );
  assert.equal(
    readableText({ role: "user", content: '{"a": "\\""}' }),
    '{"a": "\\""}',
    "only tool results are decoded",
  );
});

Deno.test("supporting-fact ids written as decimals (2.0, 2e0) earn no credit, in model answers and prediction files", async () => {
  const gold = { answer: "2", supporting_facts: [{ title: "A", sent_id: 2 }, { title: "B", sent_id: 0 }] };
  const prediction = predictionFromModelAnswer(
    '{"answer": 2.0, "supporting_facts": [["A", 2.0], ["B", 0e0], ["A", 2E0], ["B", 0]]}',
  );
  assert.deepEqual(prediction.sp, [["A", "2.0"], ["B", "0e0"], ["A", "2E0"], ["B", 0]]);
  assert.equal(prediction.answer, "2", "a numeric answer field still reads as its value");
  const m = scoreQuestion(prediction, gold);
  assert.equal(m.em, 1);
  assert.equal(m.sp_prec, 1 / 4);
  assert.equal(m.sp_recall, 1 / 2);

  const dir = await Deno.makeTempDir({ prefix: "decimal_ids_" });
  try {
    const [record] = await loadHotpotJson(REAL20);
    const facts = record.supporting_facts.map((f) => `[${JSON.stringify(f.title)}, ${f.sent_id}.0]`).join(
      ", ",
    );
    const file = join(dir, "pred.json");
    await Deno.writeTextFile(
      file,
      `{"answer": {${JSON.stringify(record.id)}: ${JSON.stringify(record.answer)}}, "sp": {${
        JSON.stringify(record.id)
      }: [${facts}]}}`,
    );
    const goldFile = join(dir, "gold.json");
    const all = JSON.parse(await Deno.readTextFile(REAL20));
    await Deno.writeTextFile(goldFile, JSON.stringify([all[0]]));
    const { metrics: scores } = await scoreHotpotFiles(goldFile, file);
    assert.equal(scores.em, 1);
    assert.equal(scores.sp_f1, 0, "decimal ids in a prediction file are malformed too");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
