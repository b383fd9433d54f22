import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import { loadHotpot } from "../src/data/hotpot_load.ts";
import type { HotpotRecord } from "../src/data/hotpot_record.ts";
import { assetPath } from "../src/assets.ts";
import {
  codePointLength,
  DEFAULT_SELECTION,
  evidenceChars,
  selectionKey,
  selectQuestions,
} from "../src/suites/hotpot/collect/select.ts";

Deno.test("default selection over the demo data takes 15 bridge and 15 comparison questions", async () => {
  const records = await loadHotpot(assetPath("fixtures/hotpot/demo.parquet"));
  const result = selectQuestions(records, DEFAULT_SELECTION);
  assert.equal(result.quota_met, true);
  assert.equal(result.selected.filter((r) => r.type === "bridge").length, 15);
  assert.equal(result.selected.filter((r) => r.type === "comparison").length, 15);
  const titles = result.selected.flatMap((r) => r.context.map((a) => a.title));
  assert.equal(new Set(titles).size, 300);
});

Deno.test("selection follows ascending SHA-256 of seed:id", () => {
  assert.equal(
    selectionKey(20261016, "abc"),
    createHash("sha256").update("20261016:abc").digest("hex"),
  );
  const records = generateHotpotRecords(40, "order");
  const result = selectQuestions(records, { ...DEFAULT_SELECTION, bridge: 3, comparison: 3 });
  const keys = result.selected.map((r) => selectionKey(DEFAULT_SELECTION.seed, r.id));
  assert.deepEqual(keys, [...keys].sort());
  const expected = records
    .map((r) => ({ r, k: selectionKey(DEFAULT_SELECTION.seed, r.id) }))
    .sort((a, b) => (a.k < b.k ? -1 : 1));
  assert.equal(result.selected[0].id, expected[0].r.id);
});

/** The index of an article that no supporting fact names. */
function distractorIndex(r: HotpotRecord): number {
  return r.context.findIndex((a) => !r.supporting_facts.some((f) => f.title === a.title));
}

/** A record modified by `change`, with a fresh id. */
function variant(base: HotpotRecord, id: string, change: (r: HotpotRecord) => void): HotpotRecord {
  const r = structuredClone(base);
  r.id = id;
  change(r);
  return r;
}

Deno.test("each filter removes its records and the counts say so", () => {
  const pool = generateHotpotRecords(12, "filters");
  const records: HotpotRecord[] = [
    variant(pool[0], "nine", (r) => r.context.pop()),
    variant(pool[1], "dup", (r) => (r.context[1].title = r.context[0].title)),
    variant(
      pool[2],
      "short",
      (r) => r.context.forEach((a) => (a.sentences = a.sentences.map((s) => s.slice(0, 20)))),
    ),
    variant(pool[3], "long", (r) => (r.context[0].sentences[0] += "x".repeat(40000))),
    variant(pool[4], "bad-sid", (r) => (r.supporting_facts[0].sent_id = 99)),
    variant(pool[5], "bad-title", (r) => (r.supporting_facts[1].title = "Nowhere")),
    variant(pool[6], "no-sf", (r) => (r.supporting_facts = [])),
    variant(pool[7], "newline", (r) => (r.context[2].sentences[0] = "two\nlines")),
    pool[8],
    variant(
      pool[9],
      "shares",
      (r) => (r.context[distractorIndex(r)].title = pool[8].context[distractorIndex(pool[8])].title),
    ),
  ];
  // Without the quota limit stopping early, every record is considered.
  const result = selectQuestions(records, { ...DEFAULT_SELECTION, bridge: 10, comparison: 10 });
  assert.deepEqual(result.removed, {
    not_ten_articles: 1,
    duplicate_titles_within: 1,
    multiline_sentence: 1,
    chars_out_of_range: 2,
    unresolved_supporting_facts: 3,
    shared_article: 1,
  });
  assert.equal(result.considered, 10);
  assert.equal(result.quota_met, false);
  assert.equal(result.selected.length, 1);
});

Deno.test("shared articles are removed whichever question comes first", () => {
  const [a, b] = generateHotpotRecords(2, "shared");
  const shared = variant(
    b,
    b.id,
    (r) => (r.context[distractorIndex(r)].title = a.context[distractorIndex(a)].title),
  );
  const result = selectQuestions([a, shared], { ...DEFAULT_SELECTION, bridge: 1, comparison: 1 });
  assert.equal(result.selected.length, 1);
  assert.equal(result.removed.shared_article, 1);
  assert.equal(result.quota_met, false);
});

Deno.test("selection stops at each quota and skips surplus records of a full type", () => {
  const records = generateHotpotRecords(30, "quota");
  const result = selectQuestions(records, { ...DEFAULT_SELECTION, bridge: 2, comparison: 5 });
  assert.equal(result.quota_met, true);
  assert.equal(result.selected.length, 7);
  assert.ok(result.considered < 30);
  assert.equal(result.considered, 7 + result.skipped_quota_full);
});

Deno.test("evidence characters are code points of the sentences, nothing added", () => {
  assert.equal(codePointLength("a😀b"), 3);
  assert.equal(codePointLength("Łódź"), 4);
  const [r] = generateHotpotRecords(1, "chars");
  const expected = r.context.reduce((n, a) => n + a.sentences.reduce((m, s) => m + [...s].length, 0), 0);
  assert.equal(evidenceChars(r), expected);
});

Deno.test("real HotpotQA sample: short records are counted as out of range", async () => {
  const records = await loadHotpot(
    new URL("./fixtures/shared_data/hotpot_dev_real20.official.json", import.meta.url).pathname,
  );
  const result = selectQuestions(records);
  assert.equal(result.quota_met, false);
  const removed = Object.values(result.removed).reduce((a, b) => a + b, 0);
  assert.equal(removed + result.selected.length + result.skipped_quota_full, 20);
  assert.ok(result.removed.chars_out_of_range >= 10);
});
