import assert from "node:assert/strict";
import { parseSpan, topLevelArraySpans } from "../src/core/json_spans.ts";
import { PublishedArrayBytes, publishedArrayElement, publishedJson } from "../src/suites/published.ts";
import { NotIJsonError } from "../src/store/canonical.ts";
import { readRowFigures, rowFigures } from "../src/suites/hotpot/run/stages/rows.ts";
import { concatBytes } from "../src/core/bytes.ts";
import type { HotpotResultRow } from "../src/suites/hotpot/run/stages/rows.ts";

/** A value as plain JSON objects (the bounded reader gives objects without a prototype). */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

const TRICKY: unknown[] = [
  { id: "q1", text: 'bracket ] brace } quote " backslash \\ unicode é 中文 😀 \u2028', n: -2.5e3 },
  { list: [[], {}, [{ a: "]" }]], empty: "", nested: { deeper: { deepest: ["[", "{"] } } },
  "a scalar",
  42,
  true,
  null,
  [],
  {},
];

Deno.test("the element scan finds every element of an array, pretty-printed, compact or tab-indented", () => {
  for (
    const text of [
      JSON.stringify(TRICKY),
      JSON.stringify(TRICKY, null, 2),
      JSON.stringify(TRICKY, null, "\t"),
    ]
  ) {
    const bytes = new TextEncoder().encode(` \n${text}\n`);
    const spans = topLevelArraySpans(bytes);
    assert.ok(spans);
    assert.deepEqual(plain(spans.map((span) => parseSpan(bytes, span))), TRICKY);
  }
  assert.deepEqual(topLevelArraySpans(new TextEncoder().encode("[]")), []);
  assert.deepEqual(topLevelArraySpans(new TextEncoder().encode(" [ ] ")), []);
});

Deno.test("the element scan yields null for what it cannot follow: not an array, truncated, trailing text", () => {
  for (const text of ['{"a": 1}', "[1, 2", '[{"a": "]"}', "[1] x", "[1,, 2]", '"[1]"', ""]) {
    assert.equal(topLevelArraySpans(new TextEncoder().encode(text)), null, text);
  }
});

Deno.test("a published array built element by element equals the published JSON of the whole array", () => {
  for (const array of [TRICKY, [], [{ a: 1 }], [[1, [2, [3]]]]]) {
    const built = new PublishedArrayBytes();
    for (const element of array) built.add(element);
    assert.equal(new TextDecoder().decode(concatBytes(built.chunks())), publishedJson(array));
  }
  assert.throws(() => publishedArrayElement({ bad: "\ud800" }), /I-JSON|surrogate/i);
  assert.throws(() => publishedArrayElement({ bad: Number.NaN }));
  // Refused with the canonical gate's error, naming the path to the bad value.
  assert.throws(
    () => publishedJson({ a: [1, { b: Infinity }] }),
    (error: unknown) => error instanceof NotIJsonError && error.path === "$.a[1].b",
  );
  assert.throws(
    () => publishedArrayElement({ n: 2 ** 60 }),
    (error: unknown) => error instanceof NotIJsonError && error.path === "$.n",
  );
});

Deno.test("a results.json's row figures are read row by row, without answer texts, the shown answer kept", () => {
  const row = (
    id: string,
    prediction: HotpotResultRow["prediction"],
    text: string | null,
  ): HotpotResultRow => ({
    question_id: id,
    type: "bridge",
    method: "jev",
    generation: 0,
    answer_index: 0,
    status: prediction ? "ok" : "invalid",
    reason: prediction ? null : "unparseable ] answer",
    answer_text: text,
    prediction,
    metrics: {
      em: 1,
      f1: 1,
      prec: 1,
      recall: 1,
      sp_em: 0,
      sp_f1: 0.5,
      sp_prec: 0.5,
      sp_recall: 0.5,
      joint_em: 0,
      joint_f1: 0.5,
      joint_prec: 0.5,
      joint_recall: 0.5,
    },
    input_tokens: 10,
    context_tokens: 10,
    within_cap: true,
    sp_survival: 1,
    context_hash: "ab".repeat(32),
  });
  const rows = [
    row("q1", { answer: "Paris ]", sp: [["T", 1]] }, '{"answer":"Paris ]"}'),
    row("q2", null, "not json {"),
    row("q3", null, null),
  ];
  const bytes = new TextEncoder().encode(publishedJson(rows));
  const figures = readRowFigures(bytes);
  assert.deepEqual(plain(figures), plain(rows.map(rowFigures)));
  assert.deepEqual(figures.map((f) => f.shown_answer), ["Paris ]", "not json {", ""]);
  assert.ok(figures.every((f) => !("answer_text" in f) && !("prediction" in f)));
  // A file the scan cannot follow is parsed whole, so that the parser names the fault.
  assert.throws(() => readRowFigures(new TextEncoder().encode('[{"question_id": "q1"')), SyntaxError);
});

Deno.test("results.json read whole gives exactly what reading it row by row gives, or refuses alike", () => {
  const outcome = (bytes: Uint8Array, wholeUpTo: number) => {
    try {
      return { value: plain(readRowFigures(bytes, wholeUpTo)) };
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message}` };
    }
  };
  const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
  const element = [
    '{"question_id":"q1","answer_text":"a","prediction":{"answer":"b"},"metrics":{"em":1}}',
    '{"question_id":"q2","answer_text":null,"prediction":null}',
    '{"question_id":"dup","question_id":"again"}',
    '{"answer_text":"lone \\ud800 surrogate"}',
    '{"answer_text":"pair \\ud83d\\ude00 é"}',
    '{"x":' + deep(509) + "}",
    '{"x":' + deep(510) + "}",
    '{"x":' + deep(511) + "}",
    "null",
    "7",
    '"text"',
    "[]",
    '{"__proto__":{"a":1}}',
    '{"a":1e400}',
    '{"bad":tru}',
  ];
  let seed = 5;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const seps = [",", ", ", ",\n  ", " ,\t"];
  for (let trial = 0; trial < 400; trial++) {
    const count = next(5);
    const parts = Array.from({ length: count }, () => element[next(element.length)]);
    let text = "[" + parts.map((p, i) => (i === 0 ? "" : seps[next(seps.length)]) + p).join("") + "]";
    if (trial % 7 === 3) text = text.slice(0, next(text.length + 1)); // truncated
    if (trial % 11 === 5) text = ` \n${text}\n`;
    if (trial % 13 === 6) text = '{"rows":' + text + "}";
    let bytes: Uint8Array = new TextEncoder().encode(text);
    if (trial % 17 === 8 && bytes.length > 0) {
      bytes = concatBytes([bytes.subarray(0, 1), new Uint8Array([0xff]), bytes.subarray(1)]);
    }
    assert.deepEqual(outcome(bytes, Infinity), outcome(bytes, 0), `trial ${trial}: ${text.slice(0, 200)}`);
  }
});

Deno.test("a string's end is found as a byte-by-byte scan finds it: escapes, backslash runs, unterminated", async () => {
  const { stringEnd } = await import("../src/core/json_spans.ts");
  const scan = (bytes: Uint8Array, at: number) => {
    for (let i = at + 1; i < bytes.length; i++) {
      if (bytes[i] === 0x5c) i++;
      else if (bytes[i] === 0x22) return i + 1;
    }
    return -1;
  };
  let seed = 21;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let n = 0; n < 5000; n++) {
    const text = '"' +
      Array.from({ length: Math.floor(next() * 12) }, () => '\\\\"aé'[Math.floor(next() * 4)]).join("");
    const bytes = new TextEncoder().encode(text);
    assert.equal(stringEnd(bytes, 0), scan(bytes, 0), JSON.stringify(text));
  }
  const json = new TextEncoder().encode(JSON.stringify(['a\\"b\\\\', 'q"\\\\\\"', "end"]));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(json.subarray(1, stringEnd(json, 1)))), 'a\\"b\\\\');
});
