import assert from "node:assert/strict";
import { canonicalJson } from "../src/store/canonical.ts";
import { isPlainJournalLine, JournalEntrySchema } from "../src/store/journal.ts";
import { type Node, NodeSchema } from "../src/store/manifest.ts";
import { isPlainNode, keyTextOfCanonical } from "../src/store/plain_records.ts";
import { random } from "./helpers/random.ts";

const SHA = "0123456789abcdef".repeat(4);
const ODD: unknown[] = [
  undefined,
  null,
  "",
  "x",
  SHA.toUpperCase(),
  SHA.slice(1),
  SHA + "0",
  `${SHA.slice(0, 63)}g`,
  0,
  -1,
  1.5,
  7,
  Number.NaN,
  2 ** 60,
  true,
  [],
  {},
  [SHA],
  { a: SHA },
  Object.create(null),
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

function maybe(next: () => number, good: () => unknown): unknown {
  return next() < 0.96 ? good() : pick(next, ODD);
}

function shaRecord(next: () => number): unknown {
  const out: Record<string, unknown> = {};
  const n = Math.floor(next() * 3);
  for (let i = 0; i < n; i++) {
    // An own "__proto__" member, as JSON.parse makes it.
    Object.defineProperty(out, pick(next, ["a", "b", "__proto__", "0", `},"key":"${SHA}","label":`]), {
      value: maybe(next, () => SHA),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  if (next() < 0.05) return Object.assign(Object.create(null), out);
  return out;
}

function node(next: () => number): unknown {
  if (next() < 0.03) return pick(next, ODD);
  const out: Record<string, unknown> = {
    key: maybe(next, () => SHA),
    label: maybe(next, () => "label"),
    stage: maybe(next, () => pick(next, ["s", ""])),
    version: maybe(next, () => pick(next, [0, 1, 3, -0])),
    params: pick(next, [{ i: 1 }, null, [], "p", 3, { x: { requests: [SHA], r: '},"key":"' }, reason: "a" }]),
    inputs: maybe(next, () => shaRecord(next)),
    outputs: maybe(next, () => shaRecord(next)),
    requests: maybe(next, () => {
      const list = Array.from({ length: Math.floor(next() * 3) }, () => maybe(next, () => SHA));
      if (next() < 0.05) list.length += 1; // a hole
      return list;
    }),
    usage: maybe(next, () => {
      const usage: Record<string, unknown> = {
        calls: maybe(next, () => 1),
        input_tokens: maybe(next, () => 10),
        output_tokens: maybe(next, () => 2),
      };
      if (next() < 0.05) usage.extra = 1;
      return usage;
    }),
    started: maybe(next, () => "t0"),
    finished: maybe(next, () => "t1"),
    status: maybe(next, () => pick(next, ["ok", "invalid", "failed"])),
  };
  for (const key of Object.keys(out)) if (next() < 0.03) delete out[key];
  if (next() < 0.2) out.reason = maybe(next, () => "why");
  if (next() < 0.2) {
    const from: Record<string, unknown> = { run: maybe(next, () => "r"), key: maybe(next, () => SHA) };
    if (next() < 0.5) from.manifest = maybe(next, () => SHA);
    if (next() < 0.05) from.other = 1;
    out.reused_from = maybe(next, () => from);
  }
  if (next() < 0.05) out.extra = "x";
  return out;
}

Deno.test("the plain node check accepts only nodes NodeSchema accepts, and returns them as it would", () => {
  const next = random(33);
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const value = node(next);
    if (!isPlainNode(value)) continue;
    accepted++;
    const parsed = NodeSchema.safeParse(value);
    assert.ok(parsed.success, `schema refuses what the plain check accepted: ${JSON.stringify(value)}`);
    assert.equal(canonicalJson(parsed.data), canonicalJson(value), "the schema would not change it");
  }
  assert.ok(accepted > 500, `enough plain nodes generated (${accepted})`);
});

Deno.test("the plain journal-line check accepts only node and file lines the schema accepts unchanged", () => {
  const next = random(34);
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const roll = next();
    const line: Record<string, unknown> = roll < 0.6
      ? { type: maybe(next, () => "node"), prev: maybe(next, () => SHA), node: node(next) }
      : roll < 0.95
      ? {
        type: maybe(next, () => "file"),
        prev: maybe(next, () => SHA),
        name: maybe(next, () => "results.json"),
        hash: maybe(next, () => SHA),
      }
      : { type: "header", prev: null, header: {} };
    if (next() < 0.05) line.extra = 1;
    if (!isPlainJournalLine(line)) continue;
    accepted++;
    const parsed = JournalEntrySchema.safeParse(line);
    assert.ok(parsed.success, `schema refuses what the plain check accepted: ${JSON.stringify(line)}`);
    assert.equal(canonicalJson(parsed.data), canonicalJson(line));
  }
  assert.ok(accepted > 1000, `enough plain lines generated (${accepted})`);
});

Deno.test("keyTextOfCanonical slices from a plain node's canonical JSON the text nodeKey hashes", () => {
  const next = random(35);
  let sliced = 0;
  for (let i = 0; i < 20_000; i++) {
    const value = node(next);
    if (!isPlainNode(value)) continue;
    let text: string;
    try {
      text = canonicalJson(value);
    } catch {
      continue;
    }
    sliced++;
    const { inputs, params, stage, version } = value as Node;
    assert.equal(keyTextOfCanonical(value, text), canonicalJson({ inputs, params, stage, version }), text);
  }
  assert.ok(sliced > 500, `enough plain nodes (${sliced})`);
});
