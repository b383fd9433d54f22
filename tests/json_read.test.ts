/**
 * The bounded JSON reader: the same values as `JSON.parse` for I-JSON texts, objects without a prototype,
 * duplicate keys and lone surrogates refused with their path, depth refused while scanning (a 100,000-deep
 * text is refused, never a stack overflow), and a size limit.
 */
import assert from "node:assert/strict";
import { JsonReadError, parseCanonicalJson, parseJson, parseJsonBytes } from "../src/core/json_read.ts";
import { canonicalJson } from "../src/store/canonical.ts";
import { random } from "./helpers/random.ts";

function refusal(text: string, limits = {}): JsonReadError {
  try {
    parseJson(text, limits);
  } catch (error) {
    assert.ok(error instanceof JsonReadError, `${error}`);
    assert.ok(error instanceof SyntaxError);
    return error;
  }
  assert.fail(`accepted ${text.slice(0, 40)}`);
}

Deno.test("parseJson gives JSON.parse's values, with objects that have no prototype", () => {
  const texts = [
    "1",
    '"a\\"b\\\\"',
    "[]",
    "{}",
    '{"a":[1,{"b":null,"c":"}{][,\\""}],"d":{"e":{"f":[true,false]}}}',
    '[{"x":1},{"x":1},[{"x":[{"x":2}]}]]',
    '{"\\u0061":1,"b":2}',
    ' { "k" : [ 1 , 2 ] , "l" : "\\ud83d\\ude00" } ',
  ];
  for (const text of texts) {
    assert.deepEqual(JSON.stringify(parseJson(text)), JSON.stringify(JSON.parse(text)));
  }
  const value = parseJson('{"__proto__":{"x":1},"constructor":"c","a":[{"b":2}]}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), null);
  assert.deepEqual(Object.keys(value), ["__proto__", "constructor", "a"]);
  assert.equal(value.constructor, "c");
  assert.equal(Object.getPrototypeOf(value.__proto__), null);
  assert.equal(Object.getPrototypeOf((value.a as object[])[0]), null);
  assert.equal((parseJson('{"a":1}') as Record<string, unknown>).toString, undefined);
});

Deno.test("duplicate keys are refused with their path, however they are spelled", () => {
  assert.match(refusal('{"a":1,"a":2}').message, /duplicate key "a".* at \$/);
  assert.equal(refusal('{"questions":[1],"x":{"y":[{"q":1,"q":2}]}}').path, "$.x.y[0].q");
  assert.equal(refusal('{"a":1,"\\u0061":2}').reason, "duplicate_key");
  assert.equal(refusal('{"a":{"z":1},"a":{"z":1,"w":2}}').reason, "duplicate_key");
  const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
  assert.doesNotThrow(() => parseJson(JSON.stringify(wide)));
  assert.equal(refusal(JSON.stringify(wide).slice(0, -1) + ',"k57":1}').reason, "duplicate_key");
  // The same key in sibling objects is no duplicate.
  assert.doesNotThrow(() => parseJson('[{"a":1},{"a":2},{"b":{"a":3}}]'));
});

Deno.test("nesting deeper than the limit is refused while scanning, with the path", () => {
  const n = 100_000;
  const deep = '[{"role":"user","x":' + "[".repeat(n) + "]".repeat(n) + "}]";
  const error = refusal(deep);
  assert.equal(error.reason, "depth");
  assert.match(error.message, /nested deeper than 512 levels at \$\[0\]\.x\[0\]/);
  assert.doesNotThrow(() => parseJson("[".repeat(512) + "]".repeat(512)));
  assert.equal(refusal("[".repeat(513) + "]".repeat(513)).reason, "depth");
  assert.equal(refusal('{"a":' + "[".repeat(10) + "]".repeat(10) + "}", { maxDepth: 5 }).reason, "depth");
});

Deno.test("lone surrogates, invalid UTF-8 and oversized texts are refused", () => {
  assert.equal(refusal('{"m":[1,"ok","\\ud800x"]}').path, "$.m[2]");
  assert.equal(refusal('{"\\udc00":1}').reason, "lone_surrogate");
  assert.doesNotThrow(() => parseJson('"\\\\ud800"')); // an escaped backslash, then text
  assert.equal(refusal("[1,2,3]", { maxChars: 5 }).reason, "size");
  assert.throws(
    () => parseJsonBytes(new Uint8Array([0x22, 0xff, 0x22])),
    (e) => e instanceof JsonReadError && e.reason === "utf8",
  );
  // Not JSON: JSON.parse's own SyntaxError.
  assert.throws(() => parseJson('{"a":}'), SyntaxError);
  assert.throws(() => parseJson("[1,"), SyntaxError);
});

/** A random I-JSON value (prototype names, escapes, astral characters, numbers in every form) of `depth` levels. */
function randomValue(next: () => number, depth: number): unknown {
  const keys = [
    "a",
    "__proto__",
    "constructor",
    'b"c',
    "\u00e9t\u00e9",
    "\n",
    "0",
    "10",
    "x y",
    "\ud83d\ude00",
  ];
  const scalars = [
    null,
    true,
    false,
    0,
    -0.5,
    1e21,
    2 ** 53 - 1,
    "",
    "\\ud800",
    'q"\\\u0001',
    "\ud83d\ude00",
  ];
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  if (depth === 0 || next() < 0.2) return pick(scalars);
  const n = Math.floor(next() * 4);
  if (next() < 0.5) return Array.from({ length: n }, () => randomValue(next, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    Object.defineProperty(object, pick(keys), {
      value: randomValue(next, depth - 1),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return object;
}

/** What a parse gave: its canonical text and every object's prototype, or the error it threw. */
function outcome(parse: (text: string) => unknown, text: string): string {
  try {
    const value = parse(text);
    const protos: unknown[] = [];
    const walk = (v: unknown) => {
      if (v === null || typeof v !== "object") return;
      protos.push(Object.getPrototypeOf(v));
      for (const member of Object.values(v)) walk(member);
    };
    walk(value);
    return `${canonicalJson(value)} ${protos.every((p) => p === null)}`;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

Deno.test("parseCanonicalJson reads canonical texts exactly as parseJson does, the deepest refused alike", () => {
  const next = random(33);
  const texts: string[] = [];
  for (let i = 0; i < 3000; i++) texts.push(canonicalJson(randomValue(next, 1 + (i % 7))));
  for (const depth of [1, 255, 256, 257, 300, 50_000]) {
    texts.push(
      "[".repeat(2 * depth) + "]".repeat(2 * depth),
      '{"a":' + '[{"b":'.repeat(depth) + "1" + "}]".repeat(depth) + "}",
    );
  }
  for (const text of texts) {
    assert.equal(outcome(parseCanonicalJson, text), outcome(parseJson, text), text.slice(0, 80));
  }
  assert.match(
    outcome(parseCanonicalJson, "[".repeat(513) + "]".repeat(513)),
    /nested deeper than 512 levels/,
  );
});
