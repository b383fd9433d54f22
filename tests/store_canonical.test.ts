import assert from "node:assert/strict";
import { canonicalBytes, canonicalJson, NotIJsonError } from "../src/store/canonical.ts";
import { canonicalHash, sha256Hex } from "../src/store/hash.ts";
import { random } from "./helpers/random.ts";

// Vectors from RFC 8785 (§3.2.2 sample, §3.2.3 sorting sample, Appendix B number table) and from the
// RFC author's test data (cyberphone/json-canonicalization testdata: weird.json, unicode.json).

Deno.test("RFC 8785 §3.2.2 sample: numbers, escapes and literals serialize exactly", () => {
  const input = String.raw`{
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  }`;
  const expected =
    String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],` +
    String.raw`"string":"€$\u000f\nA'B\"\\\\\"/"}`;
  assert.equal(canonicalJson(JSON.parse(input)), expected);
});

Deno.test("RFC 8785 §3.2.3 sample: keys sort by UTF-16 code units, astral before U+FB33", () => {
  const input = String.raw`{
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"
  }`;
  const text = canonicalJson(JSON.parse(input));
  // Object.keys would list "1" first (integer-like keys), so read the order off the text itself.
  const order = ["\\r", "1", "\u0080", "\u00f6", "\u20ac", "\u{1f600}", "\ufb33"].map((k) =>
    text.indexOf(`"${k}":`)
  );
  assert.ok(order.every((at, i) => at > (order[i - 1] ?? 0)), `key order in ${text}`);
  assert.equal(
    text,
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
      '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

Deno.test("RFC 8785 weird.json vector: sorting, raw U+007F and </script> serialize exactly", () => {
  const input = String.raw`{
    "\u20ac": "Euro Sign",
    "1": "One",
    "\u0080": "Control\u007f",
    "\ud83d\ude02": "Smiley",
    "\u00f6": "Latin Small Letter O With Diaeresis",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "</script>": "Browser Challenge"
  }`;
  assert.equal(
    canonicalJson(JSON.parse(input)),
    '{"1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f","ö":"Latin Small Letter O With Diaeresis",' +
      '"€":"Euro Sign","😂":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

Deno.test("RFC 8785 unicode.json vector: unnormalized unicode is kept raw, not normalized or escaped", () => {
  const text = canonicalJson(JSON.parse(String.raw`{"Unnormalized Unicode":"\u1e0d\u0307"}`));
  assert.equal(text, '{"Unnormalized Unicode":"\u1e0d\u0307"}');
  assert.deepEqual([...canonicalBytes({ s: "\u1e0d\u0307" })].slice(6, 11), [0xe1, 0xb8, 0x8d, 0xcc, 0x87]);
});

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

Deno.test("RFC 8785 Appendix B number vectors serialize exactly (1e+21, -0 → 0, 5e-324, …)", () => {
  const vectors: [string, string][] = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  for (const [bits, expected] of vectors) {
    assert.equal(canonicalJson(fromBits(bits)), expected, `IEEE 754 ${bits}`);
    assert.equal(canonicalJson([fromBits(bits)]), `[${expected}]`, `IEEE 754 ${bits} in an array`);
  }
  assert.equal(canonicalJson({ n: -0 }), '{"n":0}');
  assert.equal(
    canonicalJson([1e-7, 9007199254740991, -9007199254740991, 100, 1.5]),
    "[1e-7,9007199254740991,-9007199254740991,100,1.5]",
  );
});

Deno.test("RFC 8785 Appendix B integers beyond 2^53 written as digits are refused as not I-JSON", () => {
  // 9007199254740992, -9007199254740992, 295147905179352830000, 999999999999999700000, 999999999999999900000:
  // RFC 8785 would print them as plain digits, which claims an exactness a double does not have (RFC 7493 §2.2).
  for (
    const bits of [
      "4340000000000000",
      "c340000000000000",
      "4430000000000000",
      "444b1ae4d6e2ef4e",
      "444b1ae4d6e2ef4f",
    ]
  ) {
    assert.throws(
      () => canonicalJson({ big: fromBits(bits) }),
      (error: unknown) =>
        error instanceof NotIJsonError && error.path === "$.big" && /beyond 2\^53/.test(error.message),
      `IEEE 754 ${bits}`,
    );
  }
});

Deno.test("control characters use the short escapes or lower-case \\u00xx; U+2028, U+2029 and DEL stay raw", () => {
  const controls = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join("");
  const expected =
    '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f' +
    '\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"';
  assert.equal(canonicalJson(controls), expected);
  assert.equal(canonicalJson("\u2028\u2029\u007f"), '"\u2028\u2029\u007f"');
  assert.equal(canonicalJson('quote " backslash \\ slash /'), '"quote \\" backslash \\\\ slash /"');
  assert.equal(canonicalJson("emoji \u{1f600} CJK 漢字"), '"emoji \u{1f600} CJK 漢字"');
});

Deno.test("nested objects sort recursively while array order is kept", () => {
  assert.equal(
    canonicalJson({ z: [{ b: 1, a: 2 }, 3], a: { d: null, c: [] }, "": {} }),
    '{"":{},"a":{"c":[],"d":null},"z":[{"a":2,"b":1},3]}',
  );
});

Deno.test("canonicalHash is the SHA-256 of the canonical UTF-8 bytes", () => {
  const value = { b: "€", a: [1, 2.5] };
  assert.equal(canonicalHash(value), sha256Hex('{"a":[1,2.5],"b":"€"}'));
  assert.equal(canonicalHash(value), canonicalHash({ a: [1, 2.5], b: "€" }));
  const wide = { "\u{1f600}": ["é\u2028", "\ufb33\u0000"] };
  assert.equal(canonicalHash(wide), sha256Hex(canonicalBytes(wide)));
  assert.equal(canonicalHash(wide), sha256Hex(new TextEncoder().encode(canonicalJson(wide))));
});

class Point {
  constructor(readonly x: number) {}
}

Deno.test("every non-I-JSON value is refused with the path to it named", () => {
  const sym = Symbol("s");
  const cases: [string, unknown, string][] = [
    ["NaN", { a: NaN }, "$.a"],
    ["Infinity", { a: [1, Infinity] }, "$.a[1]"],
    ["-Infinity", -Infinity, "$"],
    ["undefined", undefined, "$"],
    ["undefined member", { a: { b: undefined } }, "$.a.b"],
    ["undefined element", [0, undefined], "$[1]"],
    ["array hole", { list: [1, , 3] }, "$.list[1]"],
    ["function", { f: () => 1 }, "$.f"],
    ["Map", { m: new Map([["k", 1]]) }, "$.m"],
    ["Set", [new Set([1])], "$[0]"],
    ["typed array", { bytes: new Uint8Array([1, 2]) }, "$.bytes"],
    ["ArrayBuffer", { buffer: new ArrayBuffer(2) }, "$.buffer"],
    ["BigInt", { n: 1n }, "$.n"],
    ["2**53", { n: 2 ** 53 }, "$.n"],
    ["-(2**53)", { n: -(2 ** 53) }, "$.n"],
    ["2**53 + 2", [2 ** 53 + 2], "$[0]"],
    ["lone high surrogate in a value", { s: "ok \ud800 no" }, "$.s"],
    ["lone low surrogate in a value", ["\udc00"], "$[0]"],
    ["reversed surrogate pair", { s: "\ude00\ud83d" }, "$.s"],
    ["lone surrogate in a key", { outer: { "k\ud800": 1 } }, '$.outer["k\\ud800"]'],
    ["Date", { when: new Date(0) }, "$.when"],
    ["class instance", { p: new Point(1) }, "$.p"],
    ["symbol", { s: sym }, "$.s"],
    ["symbol key", { [sym]: 1 }, "$"],
    ["key needing quotes", { "a b": { c: NaN } }, '$["a b"].c'],
  ];
  for (const [what, value, path] of cases) {
    assert.throws(
      () => canonicalJson(value),
      (error: unknown) => {
        assert.ok(error instanceof NotIJsonError, `${what}: expected NotIJsonError, got ${error}`);
        assert.equal(error.path, path, what);
        assert.ok(error.message.startsWith(`not I-JSON at ${path}: `), `${what}: ${error.message}`);
        return true;
      },
      what,
    );
  }
});

Deno.test("the refusal message says what the bad value is", () => {
  const message = (value: unknown) => {
    try {
      canonicalJson(value);
    } catch (error) {
      if (error instanceof NotIJsonError) return error.message;
      throw error;
    }
    return "accepted";
  };
  assert.match(message({ m: new Map() }), /Map/);
  assert.match(message({ d: new Date(0) }), /Date/);
  assert.match(message({ p: new Point(1) }), /Point/);
  assert.match(message({ t: new Float64Array(1) }), /Float64Array/);
  assert.match(message({ n: NaN }), /NaN/);
  assert.match(message({ n: 1n }), /BigInt/);
  assert.match(message({ s: "\ud800" }), /lone surrogate/);
});

Deno.test("well-formed surrogate pairs, null-prototype objects and safe integers are accepted", () => {
  const bare = Object.assign(Object.create(null), { b: 1, a: 2 });
  assert.equal(canonicalJson(bare), '{"a":2,"b":1}');
  assert.equal(canonicalJson({ "\u{1f600}": "\u{1f600}" }), '{"😀":"😀"}');
  assert.equal(canonicalJson(Number.MAX_SAFE_INTEGER), "9007199254740991");
});

/** Generated JSON-like values, mostly I-JSON, now and then one that is not (`bad` odds per leaf). */
function generated(next: () => number, depth: number, bad: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const text = () =>
    Array.from({ length: Math.floor(next() * 6) }, () =>
      pick([
        "a",
        "Z",
        " ",
        '"',
        "\\",
        "/",
        "\n",
        "\u0001",
        "\u001f",
        "\u007f",
        "\u2028",
        "é",
        "€",
        "\ufb33",
        "😀",
        "\u{10ffff}",
        "</script>",
      ])).join("");
  if (next() < bad) {
    return pick([
      NaN,
      Infinity,
      undefined,
      2 ** 53 + 2,
      "\ud800",
      "x\udc00",
      new Map(),
      new Date(0),
      1n,
      () => 0,
    ]);
  }
  const leaf = depth <= 0 || next() < 0.3;
  if (leaf) {
    return pick([
      () => null,
      () => next() < 0.5,
      () => text(),
      () => Math.floor(next() * 2000) - 1000,
      () => (next() - 0.5) * 10 ** Math.floor(next() * 60 - 30),
      () =>
        pick([
          0,
          -0,
          5e-324,
          1e21,
          1e-7,
          9007199254740991,
          -9007199254740991,
          333333333.33333329,
          1e300,
          2 ** 60,
        ]),
    ])();
  }
  if (next() < 0.4) {
    const list = Array.from({ length: Math.floor(next() * 5) }, () => generated(next, depth - 1, bad));
    if (next() < bad) delete list[0]; // a hole
    return list;
  }
  const object: Record<string, unknown> = next() < 0.1 ? Object.create(null) : {};
  // Now and then keys an object holds apart or treats specially: integer-like ones (listed first in numeric
  // order by Object.keys and JSON.stringify, not in code-unit order), ones that only look so, __proto__
  // (defined, not assigned, so it is an own member) and toJSON (data, never a method here).
  const key = () =>
    next() < 0.25
      ? pick(["0", "1", "2", "10", "01", "1a", "-1", "4294967295", "__proto__", "toJSON", "a", "\u{1f600}"])
      : text();
  for (let i = Math.floor(next() * 5); i > 0; i--) {
    Object.defineProperty(object, key(), {
      value: generated(next, depth - 1, bad),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  // Now and then in code-unit order already (written without a copy).
  if (next() < 0.3) {
    const sorted: Record<string, unknown> = Object.getPrototypeOf(object) === null ? Object.create(null) : {};
    for (const k of Object.keys(object).sort()) {
      Object.defineProperty(sorted, k, {
        value: object[k],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return sorted;
  }
  return object;
}

Deno.test("canonical text equals the canonicalize package's, refusals and isIJson assertIJson's, on generated values", async () => {
  const { default: canonicalize } = await import("canonicalize");
  const { assertIJson, isIJson } = await import("../src/store/canonical.ts");
  const { assertResponseIJson } = await import("../src/models/response_body.ts");
  const outcome = (f: () => string) => {
    try {
      return { text: f() };
    } catch (error) {
      if (error instanceof NotIJsonError) return { refused: error.message };
      throw error;
    }
  };
  const next = random(8785);
  let refused = 0;
  for (let i = 0; i < 6000; i++) {
    const value = generated(next, 4, i % 3 === 0 ? 0.02 : 0);
    const ours = outcome(() => canonicalJson(value));
    const reference = outcome(() => {
      assertIJson(value);
      return canonicalize(value) as string;
    });
    assert.deepEqual(ours, reference, `value ${i}`);
    assert.equal(isIJson(value), "text" in reference, `isIJson, value ${i}`);
    const response = outcome(() => (assertResponseIJson(value), ""));
    assert.equal(isIJson(value, true), "text" in response, `isIJson exact, value ${i}`);
    if ("refused" in ours) refused++;
  }
  assert.ok(refused > 100 && refused < 2000, `refusals exercised: ${refused}`);
});

Deno.test("members are written in code-unit order whatever the insertion order, integer-like keys included", () => {
  assert.equal(canonicalJson({ "2": "b", "10": "a", x: 1 }), '{"10":"a","2":"b","x":1}');
  assert.equal(canonicalJson({ b: { "10": 1, "9": 2 }, a: 0 }), '{"a":0,"b":{"10":1,"9":2}}');
  // In code-unit order already (Object.keys lists "1", "2" first): written as they are.
  assert.equal(canonicalJson({ "1": 1, "2": 2, a: [{ c: 1, b: 2 }] }), '{"1":1,"2":2,"a":[{"b":2,"c":1}]}');
  assert.equal(canonicalJson({ z: 1, "1a": 2, "01": 3 }), '{"01":3,"1a":2,"z":1}');
  const proto = JSON.parse('{"b":1,"__proto__":{"y":2,"x":1}}');
  assert.equal(canonicalJson(proto), '{"__proto__":{"x":1,"y":2},"b":1}');
  assert.equal(
    canonicalJson(JSON.parse('{"a":0,"__proto__":[{"b":1,"a":2}]}')),
    '{"__proto__":[{"a":2,"b":1}],"a":0}',
  );
  assert.equal(
    canonicalJson(JSON.parse('{"__proto__":[{"b":1,"a":2}],"a":0}')),
    '{"__proto__":[{"a":2,"b":1}],"a":0}',
  );
  // Many members (sorted otherwise than the few), in any insertion order.
  const many: Record<string, number> = {};
  const next = random(40);
  const names = Array.from(
    { length: 40 },
    (_, i) => `k${(i * 7919) % 101}${["\u00e9", "\u{1f600}", "a", "", "\ufb33"][i % 5]}`,
  );
  for (const name of names.sort(() => next() - 0.5)) many[name] = name.length;
  assert.equal(
    canonicalJson({ many }),
    `{"many":{${names.sort().map((n) => `"${n}":${n.length}`).join(",")}}}`,
  );
  // A value in order shares its parts; one that is not is copied, and the caller's value is left as it was.
  const caller = { b: [{ d: 1, c: 2 }], a: 1 };
  assert.equal(canonicalJson(caller), '{"a":1,"b":[{"c":2,"d":1}]}');
  assert.deepEqual(Object.keys(caller), ["b", "a"]);
  assert.deepEqual(Object.keys(caller.b[0]), ["d", "c"]);
});

Deno.test("toJSON is never called: a toJSON member is data, an array's toJSON method and an inherited one are ignored", () => {
  assert.equal(canonicalJson({ toJSON: 1, a: 2 }), '{"a":2,"toJSON":1}');
  assert.equal(canonicalJson({ toJSON: { b: 1, a: 2 } }), '{"toJSON":{"a":2,"b":1}}');
  for (const element of [{ a: 2, b: 1 }, { b: 1, a: 2 }]) {
    const list = Object.assign([element, 3], { toJSON: () => "replaced" });
    assert.equal(canonicalJson({ list }), '{"list":[{"a":2,"b":1},3]}');
  }
  const inherited = Object.prototype as { toJSON?: unknown };
  inherited.toJSON = () => "replaced";
  try {
    assert.equal(canonicalJson({ b: [1, { d: 0, c: 1 }], a: "x" }), '{"a":"x","b":[1,{"c":1,"d":0}]}');
    assert.equal(canonicalJson({ b: { d: 0, c: 1 }, a: "x" }), '{"a":"x","b":{"c":1,"d":0}}');
  } finally {
    delete inherited.toJSON;
  }
});

Deno.test("a node key from its params' canonical text equals the key of the whole record, on generated params", async () => {
  const { nodeKey, nodeKeyOfParamsText } = await import("../src/store/manifest.ts");
  const next = random(4242);
  const stages = ["s", "hotpot-answer", 'a "quoted" \u2028 stage', "é😀"];
  let compared = 0;
  for (let i = 0; i < 2000; i++) {
    const params = generated(next, 3, 0);
    const inputs: Record<string, string> = {};
    for (let j = Math.floor(next() * 4); j > 0; j--) {
      inputs[`in:${Math.floor(next() * 100)}`] = sha256Hex(`${i}.${j}`);
    }
    const stage = stages[i % stages.length];
    const version = i % 7;
    let paramsText: string;
    try {
      paramsText = canonicalJson(params);
    } catch (error) {
      // Refused params are refused by the key too, naming the path under `params`.
      assert.ok(error instanceof NotIJsonError);
      assert.throws(() => nodeKey(stage, version, params, inputs), (e: unknown) => {
        assert.ok(e instanceof NotIJsonError && e.path === `$.params${error.path.slice(1)}`, String(e));
        return true;
      });
      continue;
    }
    const key = nodeKey(stage, version, params, inputs);
    assert.equal(key, canonicalHash({ stage, version, params, inputs }), `value ${i}`);
    assert.equal(nodeKeyOfParamsText(stage, version, paramsText, inputs), key, `value ${i}`);
    compared++;
  }
  assert.ok(compared > 1500, `compared ${compared}`);
});
