/**
 * The analysis sections of the reports: REPORT.md and report.html show the same `95% CI` and paired cells,
 * the hypothesis states the interval of (Jev+Summary − Full) against the 5-point margin, the chart carries
 * error bars, and the explorer's embedded data cannot break out of its script element.
 */
import assert from "node:assert/strict";
import { hotpotStats } from "../src/suites/hotpot/report/stats.ts";
import { hypothesisInterval } from "../src/suites/hotpot/report/report.ts";
import { explorerHtml, packExplorer, scriptJson } from "../src/report/explorer.ts";
import {
  EMBEDDED_CONTEXT_QUESTIONS,
  hotpotExplorer,
  hotpotExplorerPacked,
} from "../src/suites/hotpot/report/stages/report.ts";
import type { HotpotResultRow } from "../src/suites/hotpot/run/run_suite.ts";
import { rowFigures } from "../src/suites/hotpot/run/stages/rows.ts";
import { METRIC_NAMES } from "../src/suites/hotpot/run/scoring.ts";
import type { Corpus } from "../src/suites/hotpot/corpus.ts";
import { reportCorpusOf } from "../src/suites/hotpot/question_card.ts";

const EVIL = "</script><script>alert('x')</script>";

function row(q: string, method: string, em: number, hash: string | null = null): HotpotResultRow {
  return {
    question_id: q,
    type: "bridge",
    method: method as HotpotResultRow["method"],
    generation: 0,
    answer_index: 0,
    status: "ok",
    reason: null,
    answer_text: EVIL,
    prediction: { answer: EVIL },
    metrics: Object.fromEntries(METRIC_NAMES.map((k) => [k, em])) as HotpotResultRow["metrics"],
    input_tokens: 100,
    context_tokens: 100,
    within_cap: true,
    sp_survival: em,
    context_hash: hash,
  };
}

const METHODS = ["full", "jev", "summary", "jev+summary"] as const;

Deno.test("the hypothesis states the CI of fusion − Full against the 5-point margin, descriptively", () => {
  // Fusion loses exactly the questions Full gets right in 1 of 10: the difference is −10 points.
  const rows = Array.from({ length: 10 }, (_, i) => `q${i}`).flatMap((q, i) =>
    METHODS.map((m) => row(q, m, m === "jev+summary" && i === 0 ? 0 : 1))
  );
  const stats = hotpotStats(rows, [...METHODS], { resamples: 2000 });
  const text = hypothesisInterval(stats)!;
  assert.match(
    text,
    /^Jev\+Summary − Full EM: -10\.0 \[-30\.0, 0\.0\] points \(95% CI, 10 paired questions, sign-flip p = 1\)/,
  );
  assert.match(text, /includes −5 points: this run cannot tell/);
  assert.match(text, /descriptive, not a pre-registered non-inferiority test/);
  const equal = hotpotStats(rows.map((r) => ({ ...r, metrics: { ...r.metrics, em: 1 } })), [...METHODS], {
    resamples: 500,
  });
  assert.match(hypothesisInterval(equal)!, /lies entirely above −5 points/);
});

Deno.test("explorer data shares each text once and cannot close its script element", () => {
  const line = "     1|A sentence that appears in several contexts.";
  const data = {
    title: EVIL,
    itemName: "question",
    filters: [],
    items: [{
      id: "q1",
      label: EVIL,
      tags: {},
      sections: [{ heading: EVIL, context: 0 }, { heading: "b", context: 1 }],
    }],
    contexts: [
      [{ role: "user" as const, content: `${line}\nonly here` }],
      [{ role: "tool" as const, content: JSON.stringify({ content: line }) }],
    ],
  };
  const packed = packExplorer(data) as { strings: string[] };
  assert.equal(packed.strings.filter((s) => s === line).length, 1);
  const json = scriptJson(packed);
  assert.equal(json.includes("<"), false);
  assert.deepEqual(JSON.parse(json), packed);
  const html = explorerHtml(data).markup;
  assert.equal(html.includes("</script><script>alert"), false);
  assert.equal((html.match(/<script/g) ?? []).length, 2);
  assert.equal(/(src|href)="?https?:/.test(html), false);
});

Deno.test("hotpot explorer marks each gold sentence kept or lost per context and tags Full right, method wrong", async () => {
  const corpus = {
    questions: [{
      id: "q1",
      type: "bridge",
      level: "hard",
      question: "Who?",
      context: [{ title: "T", sentences: ["Kept sentence.", "Lost sentence."] }],
      collection: "scripted",
      valid: true,
      trajectory: [],
    }],
    gold: { q1: { answer: "A", supporting_facts: [{ title: "T", sent_id: 0 }, { title: "T", sent_id: 1 }] } },
  } as unknown as Corpus;
  const rows = [row("q1", "full", 1, "hf"), row("q1", "jev", 0, "hj")];
  const contexts = new Map([
    ["hf", [{ role: "user" as const, content: "Kept sentence. Lost sentence." }]],
    ["hj", [{ role: "user" as const, content: "Kept sentence." }]],
  ]);
  const data = await hotpotExplorer(
    reportCorpusOf(corpus),
    rows.map(rowFigures),
    (hash) => Promise.resolve(contexts.get(hash)),
  );
  const item = data.items[0];
  assert.deepEqual(item.tags.full_right, ["jev"]);
  const jev = item.sections.find((s) => s.heading.startsWith("Context jev"))!;
  assert.match(jev.heading, /gold SP kept 1\/2/);
  assert.deepEqual(jev.table!.rows, [["T #0", "✓ kept"], ["T #1", "✗ lost"]]);
  assert.deepEqual(jev.marks, ["Kept sentence."]);
  assert.equal(data.contexts.length, 2);
});

Deno.test("with intervals the hypothesis no longer says there is no test, and stays descriptive", async () => {
  const { hypothesisWithInterval } = await import("../src/suites/hotpot/report/report.ts");
  const rows = ["q1", "q2"].flatMap((q) => METHODS.map((m) => row(q, m, 1)));
  const stats = hotpotStats(rows, [...METHODS], { resamples: 200 });
  const text = hypothesisWithInterval("Verdict X (descriptive only: no significance test).", stats);
  assert.equal(text.includes("no significance test"), false);
  assert.match(text, /Verdict X \(descriptive: the verdict compares point estimates\)\./);
  assert.match(text, /Jev\+Summary − Full EM: 0\.0 \[0\.0, 0\.0\] points/);
  assert.equal(
    hypothesisWithInterval("T (descriptive only: no significance test).", undefined),
    "T (descriptive only: no significance test).",
  );
});

/** A corpus of `ids`, each with one article "T" of the two given sentences, both gold supporting facts. */
function twoSentenceCorpus(ids: readonly string[], sentences: (id: string) => [string, string]): Corpus {
  return {
    questions: ids.map((id) => ({
      id,
      type: "bridge",
      question: "Who?",
      context: [{ title: "T", sentences: sentences(id) }],
      valid: true,
      trajectory: [],
    })),
    gold: Object.fromEntries(
      ids.map((
        id,
      ) => [id, { answer: "A", supporting_facts: [{ title: "T", sent_id: 0 }, { title: "T", sent_id: 1 }] }]),
    ),
  } as unknown as Corpus;
}

Deno.test("hotpot explorer embeds the context text of the first questions only, and marks kept or lost for all", async () => {
  const n = EMBEDDED_CONTEXT_QUESTIONS + 2;
  const ids = Array.from({ length: n }, (_, i) => `q${String(i).padStart(4, "0")}`);
  const corpus = twoSentenceCorpus(ids, (id) => [`Kept ${id}.`, `Lost ${id}.`]);
  const rows = ids.map((id) => row(id, "jev", 1, `h-${id}`));
  const read: string[] = [];
  const data = await hotpotExplorer(reportCorpusOf(corpus), rows.map(rowFigures), (hash) => {
    read.push(hash);
    return Promise.resolve([{ role: "user" as const, content: `Kept ${hash.slice(2)}.` }]);
  });
  assert.equal(read.length, n, "every context is read (once) to mark its gold sentences");
  assert.equal(data.contexts.length, EMBEDDED_CONTEXT_QUESTIONS);
  assert.equal(data.items.length, n);
  const last = data.items[n - 1].sections.find((s) => s.heading.startsWith("Context jev"))!;
  assert.equal(last.context, undefined);
  assert.deepEqual(last.table!.rows, [["T #0", "✓ kept"], ["T #1", "✗ lost"]]);
  assert.match(last.facts![0][1], new RegExp(`not embedded .* blob h-${ids[n - 1]}`));
  const first = data.items[0].sections.find((s) => s.heading.startsWith("Context jev"))!;
  assert.equal(first.context, 0);
});

Deno.test("engines explorer shows per needle whether each engine kept it and what QA answered", async () => {
  const { enginesExplorer } = await import("../src/suites/engines/explorer.ts");
  const data = enginesExplorer(
    [
      {
        id: "n1",
        kind: "needle",
        fact: "The code is 42.",
        question: "Code?",
        answer: "42",
        position: "start",
      },
      { id: "n2", kind: "needle", fact: "The port is 7.", question: "Port?", answer: "7", position: "end" },
    ],
    [
      {
        engine: "full",
        status: "ok",
        reason: null,
        needles: { found_ids: ["n1", "n2"] },
        qa: { answers: [{ id: "n1", reply: "42", correct: true }, { id: "n2", reply: "7", correct: true }] },
      },
      {
        engine: "truncate",
        budget: "25%",
        status: "ok",
        reason: null,
        needles: { found_ids: ["n2"] },
        qa: { answers: [{ id: "n1", reply: "NOT IN CONTEXT", correct: false }] },
      },
    ],
  );
  const [n1, n2] = data.items;
  assert.deepEqual(n1.tags.lost, ["lost by some engine", "truncate @25%"]);
  assert.deepEqual(n2.tags.lost, ["kept by every engine"]);
  assert.deepEqual(n1.sections[1].table!.rows[1], [
    "truncate @25%",
    "ok",
    "✗ lost",
    "✗ wrong",
    "NOT IN CONTEXT",
  ]);
  assert.deepEqual(n2.sections[1].table!.rows[1].slice(2, 4), ["✓ kept", "not asked"]);
  assert.deepEqual(n1.tags.answer, ["wrong by some engine", "truncate @25%"]);
  assert.deepEqual(n2.tags.answer, ["right by every engine"]);
});

Deno.test("engines explorer: a probe is never tagged kept or lost verbatim, only right or wrong", async () => {
  const { enginesExplorer } = await import("../src/suites/engines/explorer.ts");
  const data = enginesExplorer(
    [{ id: "p1", kind: "probe", question: "Port?", answer: "5433", type: "recall" }],
    [{
      engine: "summary",
      status: "ok",
      reason: null,
      needles: { found_ids: [] },
      qa: null,
      probes: { answers: [{ id: "p1", reply: "NOT IN CONTEXT", correct: false }] },
    }],
  );
  assert.equal(data.itemName, "probe");
  assert.deepEqual(data.items[0].tags.lost, []);
  assert.deepEqual(data.items[0].tags.answer, ["wrong by some engine", "summary"]);
  assert.deepEqual(data.items[0].tags.type, ["recall"]);
  assert.deepEqual(data.items[0].sections[1].table!.rows[0].slice(2, 5), [
    "n/a",
    "✗ wrong",
    "NOT IN CONTEXT",
  ]);
  assert.ok(data.filters.some((f) => f.id === "type"));
});

Deno.test("the hotpot explorer packed as it is made shows exactly what the whole data shows", async () => {
  const ids = ["q1", "q2", "q3"];
  const corpus = twoSentenceCorpus(ids, () => ["Kept sentence.", "Lost sentence."]);
  const rows = ids.flatMap((id) => [row(id, "full", 1, `f-${id}`), row(id, "jev", 0, `j-${id}`)]).map(
    rowFigures,
  );
  const lookup = (hash: string) =>
    Promise.resolve([{ role: "user" as const, content: `Kept sentence. ${hash}\nshared line` }]);
  const whole = packExplorer(await hotpotExplorer(reportCorpusOf(corpus), rows, lookup));
  const packed = await hotpotExplorerPacked(reportCorpusOf(corpus), rows, lookup);
  assert.equal(packed.itemCount, 3);
  // Strings are interned in another order; resolved, the two are the same.
  const resolve = (value: unknown, strings: string[], key = ""): unknown => {
    if (typeof value === "number") return ["ctx", "open"].includes(key) ? value : strings[value];
    if (Array.isArray(value)) return value.map((v) => resolve(v, strings, key === "" ? "" : key));
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).filter(([k]) => k !== "strings").map(([k, v]) => [k, resolve(v, strings, k)]),
      );
    }
    return value;
  };
  const a = whole as { strings: string[] };
  const b = packed.packed as { strings: string[] };
  assert.deepEqual(resolve(b, b.strings), resolve(a, a.strings));
  assert.equal(b.strings.filter((s) => s === "shared line").length, 1);
  assert.equal(explorerHtml(packed).markup.includes('data-items="3"'), true);
});
