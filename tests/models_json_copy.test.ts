/**
 * `jsonCopy` is `JSON.parse(JSON.stringify(value))` exactly — the same values, key order, prototypes and
 * errors, and a copy whose JSON text is the value's — on chat request bodies, on JSON's corner cases and on
 * generated values.
 */
import assert from "node:assert/strict";
import { FAST_COPY_DEPTH, jsonCopy } from "../src/models/json_copy.ts";

/** Asserts that `jsonCopy(value)` is the JSON round trip of `value`, key order included, or throws as it does. */
function assertRoundTrip(value: unknown, label = "") {
  let expected: unknown;
  try {
    expected = JSON.parse(JSON.stringify(value));
  } catch (error) {
    assert.throws(
      () => jsonCopy(value),
      { name: (error as Error).name, message: (error as Error).message },
      label,
    );
    return;
  }
  const copied = jsonCopy(value);
  assert.deepStrictEqual(copied, expected, label);
  assert.equal(JSON.stringify(copied), JSON.stringify(expected), `${label}: key order`);
  // The chat client sends the copy's text: it is the value's own.
  assert.equal(JSON.stringify(copied), JSON.stringify(value), `${label}: text`);
}

Deno.test("a chat request body copies as its JSON round trip, its strings shared and its objects new", () => {
  const messages = [
    { role: "system", content: "Answer briefly." },
    { role: "user", content: 'é — \u2028 \ud800 lone surrogate, "quotes" and \\ backslashes' },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"a":1}' } }],
    },
    { role: "tool", content: "1|x", tool_call_id: "c1", name: undefined },
  ];
  const body = {
    model: "m",
    messages,
    temperature: 0,
    max_tokens: 256,
    tools: [{
      type: "function",
      function: { name: "read_file", parameters: { type: "object", required: [] } },
    }],
    enable_thinking: false,
    chat_template_kwargs: { enable_thinking: false },
  };
  assertRoundTrip(body);
  // Messages as the store reads them: objects without a prototype.
  assertRoundTrip({ ...body, messages: messages.map((m) => Object.assign(Object.create(null), m)) });
  const copied = jsonCopy(body);
  assert.notEqual(copied.messages, messages);
  assert.notEqual(copied.messages[0], messages[0]);
  assert.ok(!("name" in copied.messages[3]));
  messages[0].content = "changed";
  assert.equal(copied.messages[0].content, "Answer briefly.");
});

Deno.test("JSON's corner cases copy as the round trip makes them, or throw as it does", () => {
  const nullPrototype = Object.assign(Object.create(null), { b: 1, a: [2] });
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = cycle;
  const deep: unknown[] = [];
  let at = deep;
  for (let i = 0; i < FAST_COPY_DEPTH * 3; i++) {
    const next: unknown[] = [i];
    at.push(next);
    at = next;
  }
  const cases: [string, unknown][] = [
    ["numbers", { zero: -0, nan: NaN, inf: -Infinity, max: Number.MAX_VALUE, tiny: 5e-324, list: [-0, NaN] }],
    ["left out and null", {
      u: undefined,
      f: () => 1,
      s: Symbol("s"),
      list: [undefined, () => 1, Symbol("s")],
    }],
    ["holes", [1, , 3]],
    ["integer keys first", { b: 1, 2: "two", a: 3, 1: "one", "-1": "minus" }],
    ["null prototype", { inner: nullPrototype }],
    ["Date", { when: new Date(0) }],
    ["toJSON", { v: { toJSON: () => ({ replaced: true }) } }],
    ["boxed", { s: new String("x"), n: new Number(2), b: new Boolean(false) }],
    ["__proto__ key", JSON.parse('{"a":{"__proto__":{"x":1},"y":2}}')],
    ["class instance", { m: new Map([[1, 2]]), e: new Error("e") }],
    ["array with extra property", Object.assign([1, 2], { extra: 3 })],
    ["deep", { deep }],
    ["cycle", cycle],
    ["bigint", { n: 1n }],
    ["top-level string", "text"],
    ["top-level undefined", undefined],
  ];
  for (const [label, value] of cases) assertRoundTrip(value, label);
});

Deno.test("generated values copy as their JSON round trip", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const leaves = [
    0,
    -0,
    1.5,
    -3,
    NaN,
    Infinity,
    1e21,
    "",
    "a",
    "é\u0000\ud83d\ude00",
    true,
    false,
    null,
    undefined,
  ];
  const make = (depth: number): unknown => {
    const kind = random();
    if (depth > 4 || kind < 0.4) return leaves[Math.floor(random() * leaves.length)];
    if (kind < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => make(depth + 1));
    // Objects as the store reads them (no prototype) and as code makes them.
    const object: Record<string, unknown> = random() < 0.5 ? Object.create(null) : {};
    for (let i = Math.floor(random() * 5); i > 0; i--) {
      object[["k", "7", "z", "0", "é"][i % 5] + i] = make(depth + 1);
    }
    return object;
  };
  for (let i = 0; i < 500; i++) assertRoundTrip({ value: make(0) }, `value ${i}`);
});
