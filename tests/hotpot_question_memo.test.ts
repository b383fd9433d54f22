/**
 * A question's stage input is parsed once and shared, frozen, by every stage body that reads it; its units are
 * built once. Sharing is safe only because nothing can change them: a change throws.
 */
import assert from "node:assert/strict";
import { storedQuestion } from "../src/suites/hotpot/run/stages/question.ts";
import { questionUnits } from "../src/suites/hotpot/run/methods.ts";

function rawQuestion() {
  return {
    id: "q1",
    type: "bridge",
    question: "Which river?",
    context: [
      {
        title: "Alpha River",
        sentences: ["Alpha is a river.", " It flows north.", " It is long.", " Fish."],
      },
      { title: "Beta", sentences: ["Beta is a town on the Alpha."] },
    ],
    trajectory: [{ role: "system", content: "sys" }, { role: "user", content: "Which river?" }],
    valid: true,
    reason: null,
  };
}

Deno.test("a stored question input is parsed once per value, deep-frozen, and leaves the input as it was", () => {
  const raw = rawQuestion();
  const question = storedQuestion(raw);
  assert.equal(storedQuestion(raw), question);
  assert.notEqual(storedQuestion(rawQuestion()), question); // another value: parsed on its own
  assert.deepEqual(question, raw);
  for (const inner of [question, question.context, question.context[0], question.context[0].sentences]) {
    assert.ok(Object.isFrozen(inner));
  }
  assert.ok(Object.isFrozen(question.trajectory[1]));
  assert.throws(() => (question.context[0].sentences as string[]).push("changed"), TypeError);
  assert.throws(() => {
    (question.trajectory[1] as { content: string }).content = "changed";
  }, TypeError);
  assert.ok(!Object.isFrozen(raw) && !Object.isFrozen(raw.context[0].sentences));
  assert.throws(() => storedQuestion({ ...raw, valid: "yes" }));
});

Deno.test("a frozen question's units are built once and frozen; another question's each time", () => {
  const question = storedQuestion(rawQuestion());
  const units = questionUnits(question);
  assert.equal(questionUnits(question), units);
  assert.ok(Object.isFrozen(units) && Object.isFrozen(units[0]));
  assert.throws(() => (units as unknown[]).pop(), TypeError);
  const plain = rawQuestion();
  const fresh = questionUnits(plain as Parameters<typeof questionUnits>[0]);
  assert.notEqual(questionUnits(plain as Parameters<typeof questionUnits>[0]), fresh);
  assert.deepEqual(fresh, units);
  assert.ok(!Object.isFrozen(fresh));
  assert.deepEqual(units.map((u) => u.id), ["alpha_river#0-2", "alpha_river#3-3", "beta#0-0"]);
});
