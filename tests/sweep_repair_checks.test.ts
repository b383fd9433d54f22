import assert from "node:assert/strict";
import { loadSweepFixture, paymentsRepairSpec } from "../src/suites/sweep/fixture.ts";
import { extractRepair } from "../src/suites/sweep/repair_checks.ts";
import { runRepairChecks } from "../src/suites/sweep/repair_checks.ts";

const repair = paymentsRepairSpec((await loadSweepFixture()).repair);

const GOOD_REPAIR = `const RETRY_ON = ["ETIMEDOUT", "ECONNRESET", "gateway_unavailable", "rate_limited"];
const MAX_ATTEMPTS = 4;

async function chargeWithRetry(client, request) {
  const idempotencyKey = \`charge-\${request.orderId}\`;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.charge(request, { idempotencyKey, timeoutMs: 4000 });
    } catch (err) {
      if (!RETRY_ON.includes(err.code) || attempt >= MAX_ATTEMPTS) throw err;
      await client.sleep(Math.min(250 * 2 ** (attempt - 1), 2000));
    }
  }
}`;

function answer(code: string): string {
  return `The root cause is ...\n\n\`\`\`js\n${code}\n\`\`\`\n`;
}

async function failedChecks(code: string): Promise<string[]> {
  const report = await runRepairChecks(answer(code), repair);
  assert.equal(report.checks.length, 6);
  assert.equal(report.all_passed, report.checks.every((check) => check.passed));
  return report.checks.filter((check) => !check.passed).map((check) => check.name);
}

Deno.test("a repair that follows the runbook and the config passes all six checks", async () => {
  const report = await runRepairChecks(answer(GOOD_REPAIR), repair);
  assert.deepEqual(report.checks.map((check) => [check.name, check.passed]), [
    ["idempotency", true],
    ["retry_limit", true],
    ["backoff", true],
    ["timeout", true],
    ["no_double_charge", true],
    ["error_surfaced", true],
  ]);
  assert.equal(report.all_passed, true);
  assert.equal(report.error, undefined);
});

Deno.test("a new idempotency key per attempt fails idempotency and double-charges", async () => {
  const code = GOOD_REPAIR
    .replace("const idempotencyKey = `charge-${request.orderId}`;", "let n = 0;")
    .replace("{ idempotencyKey, timeoutMs", "{ idempotencyKey: `k-${request.orderId}-${++n}`, timeoutMs");
  assert.deepEqual(await failedChecks(code), ["idempotency", "no_double_charge"]);
});

Deno.test("one constant key for every order fails idempotency", async () => {
  const code = GOOD_REPAIR.replace("`charge-${request.orderId}`", '"charge"');
  assert.deepEqual(await failedChecks(code), ["idempotency"]);
});

Deno.test("the buggy v2.14.0 wrapper from the fixture fails all six checks", async () => {
  const buggy = `const CHARGE_TIMEOUT_MS = 1500;
const MAX_ATTEMPTS = 5;
const RETRY_DELAY_MS = 200;
let seq = 0;
export async function chargeWithRetry(client, request) {
  let lastError;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      return await client.charge(request, { idempotencyKey: "uuid-" + (++seq), timeoutMs: CHARGE_TIMEOUT_MS });
    } catch (err) {
      lastError = err;
      await client.sleep(RETRY_DELAY_MS);
    }
  }
  const error = new Error("charge failed after retries", { cause: lastError });
  error.code = "gateway_unavailable";
  throw error;
}`;
  assert.deepEqual(await failedChecks(buggy), [
    "idempotency",
    "retry_limit",
    "backoff",
    "timeout",
    "no_double_charge",
    "error_surfaced",
  ]);
});

Deno.test("retrying one time too many fails only the retry limit", async () => {
  assert.deepEqual(await failedChecks(GOOD_REPAIR.replace("MAX_ATTEMPTS = 4", "MAX_ATTEMPTS = 5")), [
    "retry_limit",
  ]);
});

Deno.test("retrying without a limit is cut off and fails the retry limit", async () => {
  const report = await runRepairChecks(
    answer(GOOD_REPAIR.replace(" || attempt >= MAX_ATTEMPTS", "")),
    repair,
  );
  const retryLimit = report.checks.find((check) => check.name === "retry_limit")!;
  assert.equal(retryLimit.passed, false);
  assert.match(retryLimit.detail, /call limit/);
});

Deno.test("a fixed delay fails only the backoff check", async () => {
  assert.deepEqual(
    await failedChecks(GOOD_REPAIR.replace("Math.min(250 * 2 ** (attempt - 1), 2000)", "200")),
    ["backoff"],
  );
});

Deno.test("the hard-coded 1500 ms timeout fails only the timeout check", async () => {
  assert.deepEqual(await failedChecks(GOOD_REPAIR.replace("timeoutMs: 4000", "timeoutMs: 1500")), [
    "timeout",
  ]);
});

Deno.test("not retrying timeouts fails the checks that need a retry after ETIMEDOUT", async () => {
  const code = GOOD_REPAIR.replace('"ETIMEDOUT", ', "");
  assert.deepEqual(await failedChecks(code), ["retry_limit", "timeout", "no_double_charge"]);
});

Deno.test("retrying or wrapping a decline fails the surfaced-error check", async () => {
  const retriesDeclines = GOOD_REPAIR.replace('"rate_limited"]', '"rate_limited", "card_declined"]');
  assert.deepEqual(await failedChecks(retriesDeclines), ["error_surfaced"]);
  const wraps = GOOD_REPAIR.replace(
    "throw err;",
    'throw Object.assign(new Error("payment provider unavailable"), { code: "gateway_unavailable" });',
  );
  assert.deepEqual(await failedChecks(wraps), ["error_surfaced"]);
});

Deno.test("an answer without the required js block fails every check with the reason", async () => {
  const report = await runRepairChecks("The fix is to reuse the key.\n```python\nprint(1)\n```", repair);
  assert.equal(report.all_passed, false);
  assert.match(report.error!, /no ```js code block/);
  assert.ok(report.checks.every((check) => !check.passed && check.detail === report.error));
  const wrongSignature = await runRepairChecks(answer("async function chargeWithRetry(request) {}"), repair);
  assert.match(
    wrongSignature.error!,
    /no ```js block defines async function chargeWithRetry\(client, request\)/,
  );
});

Deno.test("extraction takes the last js block that defines the signature and drops export keywords", () => {
  const text = "```js\nasync function chargeWithRetry(client, request) { return 1; }\n```\n" +
    "```javascript\nexport async function chargeWithRetry( client, request ) { return 2; }\n```\n" +
    "```js\nconsole.log('usage');\n```";
  const extraction = extractRepair(text);
  assert.ok(extraction.ok);
  assert.equal(extraction.source, "async function chargeWithRetry( client, request ) { return 2; }\n");
});
