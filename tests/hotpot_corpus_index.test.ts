import assert from "node:assert/strict";
import { join } from "node:path";
import { indexCorpus, questionAt } from "../src/suites/hotpot/corpus_index.ts";
import { checkCorpusFile, readCorpus } from "../src/suites/hotpot/corpus.ts";
import { createHash } from "node:crypto";
import {
  checkedCorpusBytes,
  corpusOf,
  forgetCorpus,
  rememberCheckedCorpus,
} from "../src/suites/hotpot/run/stages/question.ts";

/** A value as plain JSON objects (the bounded reader gives objects without a prototype). */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

const TRICKY = {
  format: "x",
  note: 'a string with ] and } and "quotes" and \\\\ and [questions]',
  numbers: [1, -2.5e3, true, false, null, { nested: ["]", "}"] }],
  questions: [
    { id: "q1", text: 'bracket ] brace } quote " backslash \\ unicode é 中文 😀 \u2028' },
    { id: "q2", list: [[], {}, [{ a: "]" }]], n: 0 },
    "a scalar",
    42,
  ],
  gold: { q1: { answer: "]" } },
};

Deno.test("the corpus index finds every question's bytes and the head, pretty-printed or compact", () => {
  for (
    const text of [
      JSON.stringify(TRICKY),
      JSON.stringify(TRICKY, null, 2),
      JSON.stringify(TRICKY, null, "\t"),
    ]
  ) {
    const bytes = new TextEncoder().encode(text);
    const index = indexCorpus(bytes);
    assert.ok(index);
    // Read by the bounded reader: objects without a prototype, compared by their JSON.
    assert.deepEqual(plain(index.spans.map((span) => questionAt(bytes, span))), TRICKY.questions);
    assert.deepEqual(plain(index.head), { ...TRICKY, questions: [] });
  }
});

Deno.test("the corpus index gives up (null) on a file it cannot follow", () => {
  const cases = ["[]", "{}", '{"format": "x"}', '{"questions": 3}', '{"questions": [1, 2', '"text"', ""];
  for (const text of cases) assert.equal(indexCorpus(new TextEncoder().encode(text)), null, text);
});

Deno.test("a corpus is checked question by question as it is read whole: its head kept, a bad question, a repeated id or missing gold refused naming the field", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const question = (id: string) => ({
      id,
      type: "bridge",
      level: "hard",
      question: "Q?",
      context: [],
      collection: "scripted",
      valid: true,
      trajectory: [],
    });
    const corpus = (questions: unknown[], gold: Record<string, unknown>) => ({
      format: "compaction-bench/hotpot-corpus@1",
      dataset: { path: "d", sha256: "0".repeat(64), records: 1 },
      protocol: { seed: 1, bridge: 1, comparison: 0, min_chars: 0, max_chars: 1, collection: "scripted" },
      selection: { considered: 1, removed: {}, skipped_quota_full: 0 },
      questions,
      gold,
    });
    const gold = { answer: "A", supporting_facts: [] };
    // A valid corpus: the head and bytes kept equal the whole read's.
    const good = join(dir, "good.json");
    await Deno.writeTextFile(
      good,
      JSON.stringify(corpus([question("a"), question("b")], { a: gold, b: gold }), null, 2),
    );
    const { head, bytes } = await checkCorpusFile(good);
    const { corpus: whole } = await readCorpus(good);
    const { questions: _questions, ...wholeHead } = whole;
    assert.deepEqual(plain(head), plain(wholeHead));
    assert.deepEqual(bytes, await Deno.readFile(good));
    const cases: [unknown, RegExp][] = [
      [
        corpus([question("a"), { ...question("b"), type: "other" }], { a: gold, b: gold }),
        /field questions\.1\.type/,
      ],
      [corpus([question("a"), question("a")], { a: gold }), /question id "a" appears twice/],
      [corpus([question("a")], {}), /question a has no gold labels/],
      [corpus([], {}), /the corpus has no questions/],
    ];
    for (const [i, [value, message]] of cases.entries()) {
      const path = join(dir, `c${i}.json`);
      await Deno.writeTextFile(path, JSON.stringify(value, null, 2));
      await assert.rejects(() => checkCorpusFile(path), message);
      await assert.rejects(() => readCorpus(path), message);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the question stage's corpus from the --corpus check's index equals the one it indexes itself", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "corpus.json");
  const question = (id: string, text: string) => ({
    id,
    type: id === "b" ? "comparison" : "bridge",
    level: "hard",
    question: `${text} ] } "é 😀"?`,
    context: [],
    collection: "scripted",
    valid: id !== "c",
    ...(id === "c" ? { reason: "scripted" } : {}),
    trajectory: [{ role: "user", content: text }],
  });
  const gold = (answer: string) => ({ answer, supporting_facts: [] });
  await Deno.writeTextFile(
    path,
    JSON.stringify(
      {
        format: "compaction-bench/hotpot-corpus@1",
        dataset: { path: "d", sha256: "0".repeat(64), records: 3 },
        protocol: { seed: 1, bridge: 2, comparison: 1, min_chars: 0, max_chars: 1, collection: "scripted" },
        selection: { considered: 3, removed: {}, skipped_quota_full: 0 },
        questions: [question("z", "first"), question("b", "second"), question("c", "third")],
        gold: { z: gold("Z"), b: gold("B"), c: gold("C") },
      },
      null,
      2,
    ),
  );
  const { head, bytes, spans, parsed } = await checkCorpusFile(path);
  await Deno.remove(dir, { recursive: true });
  assert.ok(spans);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  // Indexed afresh (nothing remembered for these bytes).
  const fresh = corpusOf(sha256, bytes);
  const ids = [...fresh.ids];
  assert.deepEqual(ids, ["z", "b", "c"]);
  const questions = ids.map((id) => fresh.question(id));
  forgetCorpus(sha256);
  rememberCheckedCorpus(sha256, head, spans);
  const checked = corpusOf(sha256, new Uint8Array(bytes)); // the same bytes read back from the store
  assert.notEqual(checked, fresh);
  assert.deepEqual(plain(checked.head), plain(fresh.head));
  assert.deepEqual(checked.ids, ids);
  assert.deepEqual(plain(ids.map((id) => checked.question(id))), plain(questions));
  assert.equal(checked.question("not-an-id"), undefined);
  forgetCorpus(sha256);
  // What was remembered is what is used (here a part of it, to tell): the bytes are not scanned again.
  rememberCheckedCorpus(sha256, head, new Map([["b", spans.get("b")!]]));
  assert.deepEqual(corpusOf(sha256, bytes).ids, ["b"]);
  forgetCorpus(sha256);
  // Used once: the next corpus of these bytes is indexed afresh again.
  assert.deepEqual(corpusOf(sha256, bytes).ids, ids);
  forgetCorpus(sha256);
  // The questions the check kept as validated are handed over once each, equal to a parse of their bytes.
  assert.ok(parsed);
  assert.deepEqual([...parsed.keys()], ids);
  const kept = parsed.get("b");
  rememberCheckedCorpus(sha256, head, spans, parsed);
  const handed = corpusOf(sha256, bytes);
  const first = handed.question("b");
  assert.equal(first, kept);
  assert.ok(!parsed.has("b")); // dropped once handed over
  const second = handed.question("b");
  assert.notEqual(second, first);
  assert.deepEqual(plain(second), plain(first));
  assert.deepEqual(plain(ids.map((id) => handed.question(id))), plain(questions));
  forgetCorpus(sha256);
  // The bytes the check read are handed over once, by their SHA-256 only.
  rememberCheckedCorpus(sha256, head, spans, undefined, bytes);
  assert.equal(checkedCorpusBytes("0".repeat(64)), undefined);
  assert.equal(checkedCorpusBytes(sha256), bytes);
  assert.equal(checkedCorpusBytes(sha256), undefined);
  forgetCorpus(sha256);
});
