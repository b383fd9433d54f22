/**
 * The bounded JSON reader: the same values as `JSON.parse` for I-JSON texts, objects without a prototype,
 * duplicate keys and lone surrogates refused with their path, depth refused while scanning (a 100,000-deep
 * text is refused, never a stack overflow), and a size limit.
 */
import assert from "node:assert/strict";
import { JsonReadError, parseJson, parseJsonBytes } from "../src/core/json_read.ts";

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
