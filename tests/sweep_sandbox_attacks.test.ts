/**
 * The attacks on the repair sandbox from issue 11 (observation rewrite, huge thrown values, typed-array
 * bombs, huge errors at load), and a hostile child process that forges the channel: each ends as a failed
 * repair of that answer, and what comes after goes on. The end-to-end test drives `sweep run --live` against
 * a chat endpoint that answers every follow-up with an attack; the run must finish and verify.
 * (bench/sandbox_attacks.ts measures the peak memory of the same run's process tree.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runRepairChecks } from "../src/suites/sweep/repair_checks.ts";
import { loadSweepFixture, paymentsRepairSpec } from "../src/suites/sweep/fixture.ts";
import {
  CHILD_DATA_LIMIT_BYTES,
  type GatewayScenario,
  REPAIR_SANDBOX_COMMAND,
  runChecksInSandbox,
  type SandboxLaunch,
} from "../src/suites/sweep/sandbox.ts";
import { attackAnswer, SANDBOX_ATTACKS, startHostileChat } from "./helpers/hostile_chat.ts";
import { ROOT } from "./helpers/spawn.ts";

const SPEC = paymentsRepairSpec((await loadSweepFixture()).repair);

const GOOD = "```js\n" + `async function chargeWithRetry(client, request) {
  const idempotencyKey = "charge-" + request.orderId;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.charge(request, { idempotencyKey, timeoutMs: 4000 });
    } catch (err) {
      if (err.code === "card_declined" || attempt >= 4) throw err;
      await client.sleep(250 * 2 ** (attempt - 1));
    }
  }
}` + "\n```";

async function expectGoodStillPasses(): Promise<void> {
  const report = await runRepairChecks(GOOD, SPEC);
  assert.equal(report.all_passed, true, JSON.stringify(report.checks));
}

for (const attack of SANDBOX_ATTACKS) {
  Deno.test(`${attack.name}: every check of that answer fails, and the next answer is judged normally`, async () => {
    const report = await runRepairChecks(attackAnswer(attack), SPEC);
    assert.equal(report.all_passed, false);
    assert.ok(
      report.checks.some((check) => !check.passed && attack.failure.test(check.detail)),
      JSON.stringify(report.checks),
    );
    await expectGoodStillPasses();
  });
}

Deno.test("an observation rewrite is judged from the host's record: no key, no timeout, declines retried", async () => {
  const [attack] = SANDBOX_ATTACKS;
  const report = await runRepairChecks(attackAnswer(attack), SPEC);
  const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]));
  // Its patched built-ins break its own realm's gateway replica: where that changes an answer, the host
  // refuses the child's answer; everywhere else the host's record shows what it did.
  for (const name of ["idempotency", "no_double_charge"]) {
    assert.equal(byName[name].passed, false);
    assert.match(
      byName[name].detail,
      /used keys \[null\]|broke the channel protocol: the child answered a charge/,
    );
  }
  assert.equal(byName.timeout.passed, false);
  assert.match(byName.timeout.detail, /timeoutMs \[null/);
  assert.equal(byName.error_surfaced.passed, false);
  assert.match(byName.error_surfaced.detail, /card_declined was attempted 4 times/);
  assert.equal(byName.retry_limit.passed, false);
});

const SCENARIO: GatewayScenario = {
  charges: [
    {
      request: { orderId: "ord_H1", amount: 1, currency: "EUR", customerId: "cus_H1" },
      outcomes: ["declined"],
    },
  ],
};

/** A launch whose child is `script` (plain JavaScript run by deno with no permissions): a forged child. */
async function hostileChild(script: string): Promise<SandboxLaunch> {
  const path = await Deno.makeTempFile({ prefix: "hostile-child-", suffix: ".js" });
  await Deno.writeTextFile(path, script);
  return {
    command: Deno.execPath(),
    args: ["run", "--no-config", "--no-lock", "--quiet", path],
    env: { NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
  };
}

const CHILD_PRELUDE = `
const out = (obj) => { const b = new TextEncoder().encode(JSON.stringify(obj) + "\\n"); let n = 0; while (n < b.length) n += Deno.stdout.writeSync(b.subarray(n)); };
const raw = (text) => { const b = new TextEncoder().encode(text); let n = 0; while (n < b.length) n += Deno.stdout.writeSync(b.subarray(n)); };
let pending = "";
const line = () => { const buf = new Uint8Array(65536); for (;;) { const i = pending.indexOf("\\n"); if (i >= 0) { const l = pending.slice(0, i); pending = pending.slice(i + 1); return l; } const n = Deno.stdin.readSync(buf); if (n === null) Deno.exit(0); pending += new TextDecoder().decode(buf.subarray(0, n)); } };
out({ t: "ready" });
`;

async function forgedOutcome(body: string) {
  const launch = await hostileChild(CHILD_PRELUDE + body);
  try {
    return await runChecksInSandbox("unused", [SCENARIO, SCENARIO], { deadlineMs: 3000 }, launch);
  } finally {
    await Deno.remove(launch.args.at(-1)!);
  }
}

Deno.test("a child that claims the gateway's error with a token the host never issued is not believed", async () => {
  const outcomes = await forgedOutcome(`
for (;;) {
  line();
  out({ t: "begin", order: 0 });
  const declined = { message: "Your card has insufficient funds.", code: "card_declined", status: 402, token: 1 };
  out({ t: "charge", idempotencyKey: "k", timeoutMs: 4000, reply: { ok: false, error: { ...declined, declineCode: "insufficient_funds" } } });
  out({ t: "end", state: "threw", error: { code: "card_declined", name: "GatewayError", message: "m", token: 8 } });
  out({ t: "done", error: null });
}`);
  assert.equal(outcomes.length, 2);
  for (const outcome of outcomes) {
    assert.equal(outcome.status, "completed");
    if (outcome.status !== "completed") continue;
    assert.equal(outcome.observation.runs[0].error?.fromGateway, false);
    assert.equal(outcome.observation.events.length, 1, "the host recorded the one charge it answered");
  }
});

Deno.test("a child that breaks the channel fails that check and the next check gets a fresh child", async () => {
  const cases: [string, RegExp][] = [
    [`line(); out({ t: "begin", order: 3 });`, /began order 3; expected order 0/],
    [
      `line(); out({ t: "begin", order: 0 }); out({ t: "charge", idempotencyKey: "k", timeoutMs: 1, reply: { ok: true, value: { id: "ch_fake0001", object: "charge", status: "succeeded", amount: 1, currency: "EUR", metadata: { order_id: "ord_H1" }, replayed: false } } });`,
      /the child answered a charge with .*the gateway's answer is .*card_declined/,
    ],
    [`line(); raw("not json\\n");`, /not JSON/],
    [`line(); out({ t: "end", state: "returned", chargeId: "x".repeat(5000) });`, /wrong shape/],
    [`line(); raw("x".repeat(200000) + "\\n");`, /a line over 65536 bytes/],
    [`line(); for (;;) raw("y".repeat(65536));`, /a line over 65536 bytes/],
    [`line(); for (let i = 0; i < 6000; i++) out({ t: "sleep", ms: 1 });`, /over 5000 lines/],
    [
      `line(); out({ t: "begin", order: 0 }); Deno.exit(0);`,
      /died running the repair \(exited with code 0\)/,
    ],
    [`line(); Deno.stdout.close(); for (;;) {}`, /deadline/],
  ];
  for (const [body, pattern] of cases) {
    const outcomes = await forgedOutcome(body);
    assert.equal(outcomes.length, 2, body);
    for (const outcome of outcomes) {
      assert.notEqual(outcome.status, "completed", body);
      assert.match(outcome.status === "completed" ? "" : outcome.error, pattern, body);
    }
  }
});

Deno.test("a live sweep whose every answer is an attack finishes, fails each repair and verifies", async () => {
  const hostile = await startHostileChat();
  const dir = await Deno.makeTempDir({ prefix: "sweep-attacks-" });
  const out = join(dir, "run");
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "main.ts",
        "sweep",
        "run",
        "--live",
        "--quiet",
        "--compressions",
        "1",
        "--answers",
        "2",
        "--output",
        out,
      ],
      cwd: ROOT,
      env: {
        NO_COLOR: "1",
        LLM_API_KEY: "x",
        LLM_BASE_URL: hostile.chatBaseUrl,
        DECISION_MODEL_API_KEY: "x",
        DECISION_MODEL_BASE_URL: hostile.referenceBaseUrl,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    assert.equal(run.code, 0, decode(run.stderr));
    const rows = JSON.parse(await Deno.readTextFile(join(out, "results.json"))) as {
      status: string;
      answer_text: string | null;
      repair_all_passed: boolean;
      repair: { passed: boolean; detail: string }[];
    }[];
    const answered = rows.filter((row) => row.status === "ok");
    const seen = new Set<string>();
    for (const row of answered) {
      const attack = SANDBOX_ATTACKS.find((a) => row.answer_text === attackAnswer(a));
      assert.ok(attack, `an answer that is no attack: ${row.answer_text?.slice(0, 80)}`);
      seen.add(attack.name);
      assert.equal(row.repair_all_passed, false, attack.name);
      assert.ok(
        row.repair.some((c) => !c.passed && attack.failure.test(c.detail)),
        JSON.stringify(row.repair),
      );
    }
    assert.equal(seen.size, SANDBOX_ATTACKS.length, `attacks answered: ${[...seen].join(", ")}`);
    const verify = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "main.ts", "verify", out],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(verify.code, 0, decode(verify.stdout) + decode(verify.stderr));
  } finally {
    await hostile.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the program itself serves as the sandbox child with the hidden command, as the single binary does", async () => {
  // The binary runs `<binary> __repair-sandbox-child` with its built-in permissions; `deno run -A main.ts`
  // is the same program with every permission, which the child must revoke before it runs the repair.
  const launch: SandboxLaunch = {
    command: "prlimit",
    args: [`--data=${CHILD_DATA_LIMIT_BYTES}`, "--", Deno.execPath(), "run", "-A", join(ROOT, "main.ts")]
      .concat([REPAIR_SANDBOX_COMMAND]),
    env: { NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
  };
  const report = await runRepairChecks(GOOD, SPEC, {}, launch);
  assert.equal(report.all_passed, true, JSON.stringify(report.checks));
  const [attack] = SANDBOX_ATTACKS;
  const forged = await runRepairChecks(attackAnswer(attack), SPEC, {}, launch);
  assert.equal(forged.all_passed, false);
});
