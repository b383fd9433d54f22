import assert from "node:assert/strict";
import { checkFacts, factScore } from "../src/suites/sweep/stages/aggregate.ts";
import { loadSweepFixture } from "../src/suites/sweep/fixture.ts";

const { facts } = await loadSweepFixture();

const GOOD_ANSWER =
  `Root cause: commit a91c3f7 (release v2.14.0) moved retries into paymentClient.js. It generates a new
Idempotency-Key per attempt and hard-codes a 1500 ms timeout, ignoring gateway.charge_timeout_ms (4000) and
retry.max_attempts. Requests to api.paystream.io that we abandoned were logged by the gateway as 499
client_closed_request but still captured, so the retry with a fresh key charged again. Declines
(card_declined) are retried too and then wrapped as GatewayUnavailableError.`;

Deno.test("a correct answer passes all ten fact checks", () => {
  const checks = checkFacts(GOOD_ANSWER, facts);
  assert.deepEqual(checks.filter((check) => !check.passed).map((check) => check.fact.name), []);
  assert.equal(factScore(checks), 1);
});

Deno.test("an answer missing specifics fails exactly those facts", () => {
  const vague = GOOD_ANSWER.replace("a91c3f7", "the latest commit").replace("4000", "four seconds");
  const failed = checkFacts(vague, facts).filter((check) => !check.passed).map((check) => check.fact.text);
  assert.deepEqual(failed, ["a91c3f7", "4000"]);
  assert.equal(factScore(checkFacts(vague, facts)), 0.8);
});

Deno.test("fact checks are exact: case and spelling matter, whitespace runs fold", () => {
  const check = (answer: string, text: string) =>
    checkFacts(answer, [{ name: "t", text, unit: "u01" }])[0].passed;
  assert.equal(check("send idempotency-key on retries", "Idempotency-Key"), false);
  assert.equal(check("send the Idempotency Key header", "Idempotency-Key"), false);
  assert.equal(check("charge timed out after 1,500 ms", "1500"), false);
  assert.equal(check("gateway at\n  api.paystream.io", "api.paystream.io"), true);
  assert.equal(check("two  spaces", "two spaces"), true);
  assert.equal(factScore([]), 0);
});

Deno.test("an empty answer scores zero", () => {
  assert.equal(factScore(checkFacts("", facts)), 0);
});
