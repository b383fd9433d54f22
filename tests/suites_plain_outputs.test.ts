import assert from "node:assert/strict";
import { z } from "zod";
import { ChatMessageSchema } from "../src/models/messages.ts";
import {
  AnswerStatusSchema,
  isPlainAnswer,
  isPlainAnswerStatus,
  isPlainMessages,
  isPlainRanking,
  isPlainSummary,
  StoredAnswerSchema,
  StoredRankingSchema,
  StoredSummarySchema,
} from "../src/suites/answer_pipeline.ts";
import { readPlain } from "../src/core/plain_check.ts";
import { assertOneSided } from "./helpers/one_sided.ts";

class Box {
  constructor(readonly ok: boolean, readonly order: string[]) {}
}

/** Values a field may take: the right ones and many wrong ones. */
const ODD: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "ok",
  0,
  -1,
  1.5,
  7,
  Number.NaN,
  Infinity,
  2 ** 60,
  true,
  [],
  {},
  ["a"],
  [1],
  new String("x"),
  Symbol("s"),
  10n,
  new Box(true, []),
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

/** `fields` as an object: usually plain, sometimes without a prototype, a class's, or with odd own keys. */
function object(next: () => number, fields: Record<string, unknown>): unknown {
  const roll = next();
  if (roll < 0.03) return pick(next, ODD);
  if (roll < 0.2) return Object.assign(Object.create(null), fields);
  if (roll < 0.23) return Object.assign(Object.create({ inherited: 1 }), fields);
  if (roll < 0.26) return Object.assign(new Box(true, []), fields);
  const out: Record<string | symbol, unknown> = { ...fields };
  const odd = next();
  if (odd < 0.03) out[Symbol("k")] = pick(next, ODD);
  else if (odd < 0.06) Object.defineProperty(out, "hidden", { value: pick(next, ODD), enumerable: false });
  else if (odd < 0.09) {
    Object.defineProperty(out, "constructor", { value: pick(next, ODD), enumerable: true });
  } else if (odd < 0.12) {
    Object.defineProperty(out, "__proto__", { value: pick(next, ODD), enumerable: true });
  } else if (odd < 0.15) out.extra = pick(next, ODD);
  return out;
}

/** Sets `key` to a good value (usually), an odd one, or leaves it out. */
function field(
  next: () => number,
  out: Record<string, unknown>,
  key: string,
  good: readonly unknown[],
  absent = 0.03,
): void {
  const roll = next();
  if (roll < absent) return;
  out[key] = roll < 0.9 ? pick(next, good) : pick(next, ODD);
}

function list(next: () => number, item: () => unknown): unknown {
  if (next() < 0.05) return pick(next, ODD);
  const out = Array.from({ length: Math.floor(next() * 4) }, item);
  if (next() < 0.05) out.length += 1; // a hole
  return out;
}

function ranking(next: () => number): unknown {
  if (next() < 0.05) return null;
  const out: Record<string, unknown> = {};
  field(next, out, "ok", [true, false]);
  out.order = list(next, () => next() < 0.9 ? pick(next, ["u1", "u2", ""]) : pick(next, ODD));
  for (const key of ["node", "model", "error"]) field(next, out, key, ["n", ""], 0.4);
  if (next() < 0.6) {
    const probabilities: Record<string, unknown> = {};
    for (const id of ["u1", "u2", "constructor", "__proto__", "0"].slice(0, Math.floor(next() * 5))) {
      probabilities[id] = next() < 0.9 ? pick(next, [0, 0.5, 1, -2]) : pick(next, ODD);
    }
    out.probabilities = object(next, probabilities);
  }
  return object(next, out);
}

function summary(next: () => number): unknown {
  if (next() < 0.05) return null;
  const out: Record<string, unknown> = {};
  field(next, out, "ok", [true, false]);
  field(next, out, "text", ["", "a summary", null]);
  for (const key of ["node", "reason"]) field(next, out, key, ["n", ""], 0.4);
  if (next() < 0.5) out.kept = list(next, () => next() < 0.9 ? pick(next, ["u1", ""]) : pick(next, ODD));
  field(next, out, "attempts", [0, 1, 3, -2], 0.5);
  return object(next, out);
}

function messages(next: () => number): unknown {
  if (next() < 0.05) return null;
  return list(next, () => {
    const out: Record<string, unknown> = {};
    field(next, out, "role", ["system", "user", "assistant", "tool", "developer"]);
    field(next, out, "content", ["", "text", null], 0.05);
    if (next() < 0.15) out.tool_calls = list(next, () => ({ id: "c", type: "function", function: {} }));
    if (next() < 0.1) out.tool_call_id = next() < 0.8 ? "c" : pick(next, ODD);
    if (next() < 0.1) out.name = next() < 0.8 ? "n" : pick(next, ODD);
    return object(next, out);
  });
}

function answer(next: () => number): unknown {
  if (next() < 0.05) return null;
  const out: Record<string, unknown> = {};
  for (const key of ["content", "model", "finish_reason"]) field(next, out, key, ["", "a"]);
  const usage: Record<string, unknown> = {};
  for (const key of ["prompt_tokens", "completion_tokens", "total_tokens"]) {
    field(next, usage, key, [0, 3, -1]);
  }
  out.usage = object(next, usage);
  return object(next, out);
}

function answerStatus(next: () => number): unknown {
  const out: Record<string, unknown> = {};
  field(next, out, "node", ["k"]);
  field(next, out, "status", ["ok", "invalid", "failed"]);
  field(next, out, "reason", [null, "why"]);
  const params: Record<string, unknown> = {};
  for (const key of ["a", "constructor", "__proto__"].slice(0, Math.floor(next() * 4))) {
    params[key] = pick(next, ODD);
  }
  out.params = next() < 0.9 ? object(next, params) : pick(next, ODD);
  return object(next, out);
}

Deno.test("the fast stage output checks accept only what the outputs' schemas accept", () => {
  assertOneSided("ranking", isPlainRanking, StoredRankingSchema.nullable(), ranking, { seed: 33 });
  assertOneSided("summary", isPlainSummary, StoredSummarySchema.nullable(), summary, { seed: 33 });
  assertOneSided("messages", isPlainMessages, z.array(ChatMessageSchema).nullable(), messages, { seed: 33 });
  assertOneSided("answer", isPlainAnswer, StoredAnswerSchema.nullable(), answer, { seed: 33 });
  assertOneSided("answer status", isPlainAnswerStatus, AnswerStatusSchema, answerStatus, { seed: 33 });
});

Deno.test("the fast stage output checks accept the usual outputs as read back from the store", () => {
  const read = (value: unknown) => JSON.parse(JSON.stringify(value));
  assert.ok(
    isPlainRanking(read({ node: "k", ok: true, order: ["b", "a"], probabilities: { a: 0.1, b: 0.9 } })),
  );
  assert.ok(isPlainMessages(read([{ role: "system", content: "s" }, { role: "user", content: "q" }])));
  const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
  assert.ok(isPlainAnswer(read({ content: "a", usage, model: "m", finish_reason: "stop" })));
  assert.ok(isPlainAnswerStatus(read({ node: "k", status: "invalid", reason: "why", params: { seed: 1 } })));
});

Deno.test("readPlain gives a plain value as it is, with the members the schema's parse gives, else the parse", () => {
  const ranking = JSON.parse(
    '{"model":"m","node":"k","ok":true,"order":["b","a"],"probabilities":{"a":0.1,"b":0.9}}',
  );
  const read = readPlain(StoredRankingSchema, isPlainRanking, ranking);
  assert.equal(read, ranking);
  assert.deepEqual(read, StoredRankingSchema.parse(ranking));
  const summary = { ok: true, text: "s", kept: ["u1"], reason: undefined };
  assert.deepEqual(
    readPlain(StoredSummarySchema, isPlainSummary, summary),
    StoredSummarySchema.parse(summary),
  );
  // Not plain: the schema decides, copying what it accepts and throwing its own error for the rest.
  const boxed = Object.assign(Object.create({ inherited: 1 }), { ok: false, order: [], error: "e" });
  assert.deepEqual(readPlain(StoredRankingSchema, isPlainRanking, boxed), {
    ok: false,
    order: [],
    error: "e",
  });
  assert.throws(
    () => readPlain(StoredRankingSchema, isPlainRanking, { ok: "yes", order: [] }),
    /expected boolean/i,
  );
});
