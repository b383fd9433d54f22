import assert from "node:assert/strict";
import { SystemOneClient } from "../src/models/decision_client.ts";
import { orderByProbability, rank, rankQuestion } from "../src/models/rank.ts";
import { parseFaultSpec } from "../src/models/reference/faults.ts";
import { startReferenceServer } from "../src/models/reference/server.ts";
import type { RankUnit } from "../src/models/types.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();
const TASK = "Why were customers charged twice after the payment deploy?";

Deno.test("ranking orders units by descending relevance and records every probability", async () => {
  const server = await startReferenceServer({ counter });
  try {
    const units: RankUnit[] = [
      { id: "u-coffee", text: "The office coffee machine was repaired on Friday." },
      {
        id: "u-deploy",
        text: "The payment deploy changed how charges are retried; customers were charged twice.",
      },
      { id: "u-charge", text: "Some customers were charged twice." },
    ];
    const decision = new SystemOneClient({ apiKey: "sk-test-SECRET", baseURL: server.baseUrl });
    const ranking = await rank(decision, units, TASK);
    assert.ok(ranking.ok, !ranking.ok ? ranking.error : "");
    assert.deepEqual(ranking.order, ["u-deploy", "u-charge", "u-coffee"]);
    assert.deepEqual(Object.keys(ranking.probabilities).sort(), ["u-charge", "u-coffee", "u-deploy"]);
    assert.equal(ranking.probabilities["u-coffee"], 0);
    const request = ranking.records[0].request as { state: string; questions: { instructions: string }[] };
    assert.equal(request.state, TASK);
    assert.equal(request.questions[1].instructions, rankQuestion(units[1]).instructions);
    assert.match(request.questions[1].instructions, /Is this unit useful for the task\? Unit id: u-deploy/);
    assert.ok(request.questions[1].instructions.includes(units[1].text));
    const again = await rank(decision, units, TASK);
    assert.ok(again.ok);
    assert.deepEqual(
      [again.order, again.probabilities],
      [ranking.order, ranking.probabilities],
      "deterministic",
    );
  } finally {
    await server.close();
  }
});

Deno.test("ties in probability are broken by unit id in plain string order", async () => {
  assert.deepEqual(orderByProbability({ b: 0.5, a: 0.5, c: 0.9, B: 0.5, a10: 0.5, a2: 0.5 }), [
    "c",
    "B",
    "a",
    "a10",
    "a2",
    "b",
  ]);
  const server = await startReferenceServer({ counter });
  try {
    const decision = new SystemOneClient({ apiKey: "k", baseURL: server.baseUrl });
    const same = "unrelated text about gardening";
    const ranking = await rank(decision, [
      { id: "u2", text: same },
      { id: "u10", text: same },
      { id: "u1", text: same },
    ], TASK);
    assert.ok(ranking.ok);
    assert.deepEqual(ranking.order, ["u1", "u10", "u2"]);
  } finally {
    await server.close();
  }
});

Deno.test("a failed decision call gives a failed ranking with its records, and duplicate ids are refused", async () => {
  const server = await startReferenceServer({ counter, faults: parseFaultSpec("malformed=1") });
  try {
    const decision = new SystemOneClient({ apiKey: "k", baseURL: server.baseUrl });
    const ranking = await rank(decision, [{ id: "a", text: "x" }], TASK);
    assert.ok(!ranking.ok);
    assert.match(ranking.error, /malformed JSON/);
    assert.equal(ranking.records.length, 1);
    await assert.rejects(
      rank(decision, [{ id: "a", text: "x" }, { id: "a", text: "y" }], TASK),
      /duplicate unit id "a"/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("rank's order is orderByProbability's over generated units: ties, integer-like ids, odd probabilities", async () => {
  let seed = 5;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const idPool = [
    "10",
    "2",
    "1",
    "b",
    "a",
    "B",
    "u-1",
    "u-10",
    "é",
    "z",
    "",
    "00",
    "0",
    "-1",
    "ab",
    "a\u0000",
  ];
  for (let round = 0; round < 400; round++) {
    const ids = idPool.filter(() => next() < 0.6);
    const levels = [0, 0.25, 0.5, 1, -0, next()];
    const nouls = ids.map(() => {
      if (round % 50 === 7) return [Number.NaN, Infinity, 0.5][Math.floor(next() * 3)];
      return levels[Math.floor(next() * levels.length)];
    });
    const decision = {
      model: "m",
      ask: () =>
        Promise.resolve({
          ok: true as const,
          nouls,
          model: "m",
          usage: { input_tokens: 0, output_tokens: 0 },
          records: [],
        }),
    };
    const units = ids.map((id) => ({ id, text: `text ${id}` }));
    const ranking = await rank(decision, units, TASK);
    assert.ok(ranking.ok);
    const probabilities: Record<string, number> = {};
    units.forEach((unit, i) => probabilities[unit.id] = nouls[i]);
    assert.deepEqual(ranking.order, orderByProbability(probabilities), `round ${round}`);
    // Every unit's probability, inserted in the ids' code-unit order (as the stored ranking has them).
    const sorted: Record<string, number> = {};
    for (const id of [...ids].sort()) sorted[id] = probabilities[id];
    assert.deepEqual(Object.entries(ranking.probabilities), Object.entries(sorted));
  }
});
