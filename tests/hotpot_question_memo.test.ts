/**
 * A question's stage input is parsed once and shared, frozen, by every stage body that reads it; its units are
 * built once, and so is its frame per counter and limit, whose selections (Jev's fit, the fusion's retained
 * units) are kept for the question's other generations and stages. Sharing is safe only because nothing can
 * change them: a change throws.
 */
import assert from "node:assert/strict";
import { storedQuestion } from "../src/suites/hotpot/run/stages/question.ts";
import { hotpotFrame, questionUnits } from "../src/suites/hotpot/run/methods.ts";
import { declaredMethod, type EvidenceFrame, frameMemo, fusionRetained } from "../src/methods/registry.ts";
import { countPrompt } from "../src/tokens/budget.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";

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

/** A question of many units with long sentences, so that a limit makes Jev and the fusion choose. */
function longQuestion() {
  const sentence = (a: number, i: number) =>
    ` Sentence ${i} of article ${a} says something about Émile and Kraków.`;
  return {
    id: "q2",
    type: "comparison",
    question: "Which article is longest?",
    context: Array.from({ length: 6 }, (_, a) => ({
      title: `Article ${a}`,
      sentences: Array.from({ length: 3 + a * 2 }, (_, i) => sentence(a, i)),
    })),
    trajectory: [{ role: "system", content: "You are an agent." }, {
      role: "user",
      content: "Compare them.",
    }],
    valid: true,
    reason: null,
  };
}

const counter = await loadTokenCounter();

Deno.test("a frozen question's frame is made once per counter and limit and frozen; another question's each time", async () => {
  const question = storedQuestion(longQuestion());
  const frame = hotpotFrame(counter, question, 600);
  assert.ok(Object.isFrozen(frame));
  assert.equal(hotpotFrame(counter, question, 600), frame);
  assert.notEqual(hotpotFrame(counter, question, 700), frame);
  const other = await loadTokenCounter(undefined, { parseToolArguments: true });
  assert.notEqual(hotpotFrame(other, question, 600), frame);
  assert.equal(frame.units, questionUnits(question));
  const plain = longQuestion() as unknown as Parameters<typeof hotpotFrame>[1];
  const fresh = hotpotFrame(counter, plain, 600);
  assert.ok(!Object.isFrozen(fresh));
  assert.notEqual(hotpotFrame(counter, plain, 600), fresh);
  assert.deepEqual(fresh.render(fresh.units.slice(0, 2), "s"), frame.render(frame.units.slice(0, 2), "s"));
});

Deno.test("frameMemo keeps a frozen frame's results by key and computes an unfrozen frame's each time", () => {
  const question = storedQuestion(longQuestion());
  const frozen = hotpotFrame(counter, question, 600);
  const unfrozen: EvidenceFrame = { ...frozen };
  let computed = 0;
  const compute = () => ({ n: ++computed });
  const first = frameMemo(frozen, "a", compute);
  assert.equal(frameMemo(frozen, "a", compute), first);
  assert.equal(computed, 1);
  assert.notEqual(frameMemo(frozen, "b", compute), first);
  assert.equal(computed, 2);
  frameMemo(unfrozen, "a", compute);
  frameMemo(unfrozen, "a", compute);
  assert.equal(computed, 4);
});

Deno.test("Jev's and the fusion's kept selections equal fresh ones, and Jev's count is its input's exact count", () => {
  const question = storedQuestion(longQuestion());
  const jev = declaredMethod("jev")!;
  const fusion = declaredMethod("jev+summary")!;
  const ids = questionUnits(question).map((u) => u.id);
  const orders = [ids, [...ids].reverse(), ids.filter((_, i) => i % 2 === 1)];
  let chose = 0;
  for (const limit of [250, 600, 1200, 5000]) {
    for (const order of orders) {
      const frozen = hotpotFrame(counter, question, limit);
      const unfrozen: EvidenceFrame = { ...frozen };
      const fresh = jev.evidence(unfrozen, { order }, {})!;
      for (let round = 0; round < 2; round++) {
        // A new but equal order each round, as a second generation's ranking is.
        const kept = jev.evidence(frozen, { order: [...order] }, {})!;
        assert.deepEqual(kept.kept.map((u) => u.id), fresh.kept.map((u) => u.id));
        assert.equal(kept.tokens, fresh.tokens);
        assert.equal(kept.tokens, countPrompt(counter, frozen.render(kept.kept, "")));
        kept.kept.pop(); // the caller's own array: the kept selection stays whole
        const retained = fusionRetained(frozen, [...order], 0.4);
        assert.deepEqual(retained, fusionRetained(unfrozen, order, 0.4));
        assert.deepEqual(retained, fusion.retain!(unfrozen, order, { fusion_share: 0.4 }));
        retained.pop();
      }
      if (fresh.kept.length > 0 && fresh.kept.length < order.length) chose++;
    }
  }
  assert.ok(chose >= 3, "some limits make Jev choose");
});

Deno.test("a frozen frame counts a compacted input as its parts, exactly the whole prompt's count", () => {
  const question = storedQuestion(longQuestion());
  const frame = hotpotFrame(counter, question, 600);
  assert.ok(frame.count !== undefined);
  const units = frame.units;
  const subsets = [
    [],
    units.slice(0, 1),
    units.slice(-1),
    units,
    units.filter((_, i) => i % 2 === 0),
    units.filter((_, i) => i % 3 !== 1),
    [...units].reverse(), // out of source order: rendered in the order given
  ];
  // Summaries that end, start or are made with line breaks, whitespace and added tokens, and none.
  const summaries = ["", "A summary.", "\n  spaced\n", "Two\nlines <|im_end|> and <think>", " ", "x\n\n"];
  for (const round of [1, 2]) { // the second round is answered from the frame's part counts
    for (const summary of summaries) {
      for (const kept of subsets) {
        const whole = countPrompt(counter, frame.render(kept, summary));
        assert.equal(frame.count!(kept, summary), whole, `round ${round}, ${kept.length} units, ${summary}`);
      }
    }
  }
  // A count asked again is the one made; a unit that is not the frame's own (another text at its position)
  // is counted for what it holds, never answered from the frame's counts.
  const kept = units.slice(0, 2);
  assert.equal(frame.count!(kept, "A summary."), countPrompt(counter, frame.render(kept, "A summary.")));
  const changed = [kept[0], { ...kept[1], text: `${kept[1].text} More words here.` }];
  assert.equal(
    frame.count!(changed, "A summary."),
    countPrompt(counter, frame.render(changed, "A summary.")),
  );
  assert.notEqual(frame.count!(changed, "A summary."), frame.count!(kept, "A summary."));
});
