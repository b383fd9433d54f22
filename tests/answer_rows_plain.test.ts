import assert from "node:assert/strict";
import { AnswerStatusSchema, plainAnswerRow, StoredAnswerSchema } from "../src/suites/answer_pipeline.ts";
import { random } from "./helpers/random.ts";

const ODD: unknown[] = [undefined, null, "", "x", 0, -1, 1.5, Number.NaN, Infinity, 2 ** 60, true, [], {}, [
  1,
], 10n];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

function status(next: () => number): unknown {
  if (next() < 0.03) return pick(next, ODD);
  const out: Record<string, unknown> = {
    node: next() < 0.93 ? "node-key" : pick(next, ODD),
    status: next() < 0.93 ? pick(next, ["ok", "invalid"]) : pick(next, ["OK", ...ODD]),
    reason: next() < 0.93 ? pick(next, [null, "why"]) : pick(next, ODD),
    params: next() < 0.93
      ? { method: "full", generation: 0, answer_index: pick(next, [0, 1]) }
      : pick(next, [JSON.parse('{"__proto__": {"a": 1}}'), Object.create(null), new Map(), ...ODD]),
  };
  if (next() < 0.05) delete out[pick(next, ["node", "status", "reason", "params"])];
  if (next() < 0.1) out.extra = 1;
  return out;
}

function answer(next: () => number): unknown {
  if (next() < 0.1) return next() < 0.5 ? null : pick(next, ODD);
  const count = () => next() < 0.93 ? pick(next, [0, 12, -0]) : pick(next, ODD);
  const out: Record<string, unknown> = {
    content: next() < 0.93 ? "Paris" : pick(next, ODD),
    usage: next() < 0.95
      ? { prompt_tokens: count(), completion_tokens: count(), total_tokens: count() }
      : pick(next, ODD),
    model: next() < 0.95 ? "m" : pick(next, ODD),
    finish_reason: next() < 0.95 ? "stop" : pick(next, ODD),
  };
  if (next() < 0.1) out.extra = 1;
  return out;
}

Deno.test("the fast answer row check accepts only what the row schemas accept, parsed as they parse it", () => {
  const next = random(7);
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const [a, s] = [answer(next), status(next)];
    const fast = plainAnswerRow(a, s);
    const parsedStatus = AnswerStatusSchema.safeParse(s);
    const parsedAnswer = StoredAnswerSchema.nullable().safeParse(a);
    if (fast === null) continue;
    accepted++;
    assert.ok(
      parsedStatus.success && parsedAnswer.success,
      `accepted what a schema refuses: ${Deno.inspect([a, s])}`,
    );
    // Member for member (a parsed JSON object without a prototype is taken as read).
    const members = (value: unknown) => JSON.parse(JSON.stringify(value));
    assert.deepStrictEqual(members(fast), members({ answer: parsedAnswer.data, status: parsedStatus.data }));
  }
  assert.ok(accepted > 5_000, `${accepted} accepted by the fast check`);
});
