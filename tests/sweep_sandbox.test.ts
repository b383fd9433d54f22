import assert from "node:assert/strict";
import { type GatewayScenario, runInSandbox } from "../src/suites/sweep/sandbox.ts";
import { ROOT } from "./helpers/spawn.ts";

const SCENARIO: GatewayScenario = {
  charges: [{
    request: { orderId: "ord_S1", amount: 10, currency: "EUR", customerId: "cus_S1" },
    outcomes: ["timeout_after_charge", "ok"],
  }],
};

const GOOD = `async function chargeWithRetry(client, request) {
  const idempotencyKey = "charge-" + request.orderId;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.charge(request, { idempotencyKey, timeoutMs: 4000 });
    } catch (err) {
      if (err.code !== "ETIMEDOUT" || attempt >= 4) throw err;
      await client.sleep(250 * 2 ** (attempt - 1));
    }
  }
}`;

/** A repair whose body is `body`, run before it charges. */
function hostile(body: string): string {
  return `async function chargeWithRetry(client, request) {\n${body}\n  return client.charge(request, { idempotencyKey: "k", timeoutMs: 4000 });\n}`;
}

/** Runs a hostile repair, then proves the caller goes on: a good repair right after works normally. */
async function expectStopped(source: string, pattern: RegExp): Promise<string> {
  const outcome = await runInSandbox(source, SCENARIO);
  let reason: string;
  if (outcome.status === "completed") {
    const run = outcome.observation.runs[0];
    assert.equal(run.state, "threw", `expected the hostile repair to fail, got ${JSON.stringify(run)}`);
    reason = `${run.error!.name}: ${run.error!.message}`;
  } else {
    reason = outcome.error;
  }
  assert.match(reason, pattern);
  const after = await runInSandbox(GOOD, SCENARIO);
  assert.equal(after.status, "completed");
  assert.equal(after.status === "completed" && after.observation.runs[0].chargeId, "ch_fake0001");
  return reason;
}

Deno.test("a good repair runs to completion and the fake gateway records every call", async () => {
  const outcome = await runInSandbox(GOOD, SCENARIO);
  assert.equal(outcome.status, "completed");
  if (outcome.status !== "completed") return;
  assert.deepEqual(outcome.observation.runs, [{
    orderId: "ord_S1",
    state: "returned",
    chargeId: "ch_fake0001",
  }]);
  assert.deepEqual(outcome.observation.events.map((event) => event.type), ["charge", "sleep", "charge"]);
  assert.deepEqual(outcome.observation.ledger, [
    { chargeId: "ch_fake0001", orderId: "ord_S1", idempotencyKey: "charge-ord_S1" },
  ]);
});

Deno.test("a repair that reads a file is refused and the next run goes on", async () => {
  await expectStopped(hostile(`Deno.readTextFileSync("/etc/passwd");`), /Deno is not defined/);
});

Deno.test("a repair cannot reach the child's own realm through constructors", async () => {
  const escape = `const outer = Object.getPrototypeOf(client.charge).constructor;`;
  await expectStopped(
    hostile(`${escape}\nouter("return Deno")().readTextFileSync("/etc/passwd");`),
    /EvalError/,
  );
  await expectStopped(
    hostile(`this.constructor.constructor("return Deno.env.get('HOME')")();`),
    /EvalError|Cannot read properties|undefined/,
  );
});

Deno.test("a repair that writes a file is refused and writes nothing", async () => {
  const path = await Deno.makeTempFile({ prefix: "sweep_sandbox_" });
  try {
    await expectStopped(
      hostile(`Deno.writeTextFileSync(${JSON.stringify(path)}, "pwned");`),
      /Deno is not defined/,
    );
    assert.equal(await Deno.readTextFile(path), "");
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("a repair that reads the environment is refused", async () => {
  await expectStopped(hostile(`const home = Deno.env.get("HOME");`), /Deno is not defined/);
  await expectStopped(hostile(`const p = process.env.HOME;`), /process is not defined/);
});

Deno.test("a repair that opens the network is refused", async () => {
  await expectStopped(hostile(`await fetch("http://127.0.0.1:9/");`), /fetch is not defined/);
  await expectStopped(hostile(`new WebSocket("ws://127.0.0.1:9/");`), /WebSocket is not defined/);
});

Deno.test("a repair that spawns a process or imports a module is refused", async () => {
  await expectStopped(
    hostile(`new Deno.Command("sh", { args: ["-c", "id"] }).outputSync();`),
    /Deno is not defined/,
  );
  await expectStopped(hostile(`require("node:child_process").execSync("id");`), /require is not defined/);
  await expectStopped(`import { execSync } from "node:child_process";\n${GOOD}`, /did not load/);
  await expectStopped(
    hostile(`await import("data:text/javascript,export default 1");`),
    /import|not supported|TypeError/,
  );
});

Deno.test("a repair that loops forever is stopped by the CPU timeout", async () => {
  await expectStopped(hostile(`for (;;) {}`), /did not finish: .*timed out/);
  await expectStopped(hostile(`while (true) { await client.sleep(1); }`), /did not finish: .*timed out/);
  await expectStopped(`for (;;) {}\n${GOOD}`, /did not load: .*timed out/);
});

Deno.test("a repair that allocates without bound is stopped", async () => {
  const before = Deno.memoryUsage().rss;
  await expectStopped(
    hostile(`const hoard = []; for (;;) { hoard.push(new Array(1e5).fill(Math.random())); }`),
    /timed out|memory|Invalid|died running the repair/i,
  );
  await expectStopped(hostile(`let s = "x"; for (;;) { s += s; }`), /Invalid string length/);
  assert.ok(Deno.memoryUsage().rss - before < 4e9);
});

Deno.test("a repair that throws, or never settles, fails and the next run goes on", async () => {
  await expectStopped(hostile(`throw new TypeError("boom");`), /TypeError: boom/);
  await expectStopped(`throw new Error("at load");\n${GOOD}`, /did not load: Error: at load/);
  await expectStopped(`function chargeWithRetry( {`, /did not load: SyntaxError/);
  const pending = await runInSandbox(hostile(`await new Promise(() => {});`), SCENARIO);
  assert.equal(pending.status, "completed");
  assert.equal(pending.status === "completed" && pending.observation.runs[0].state, "pending");
});

Deno.test("a repair cannot post a forged result to the host", async () => {
  const forged = hostile(
    `postMessage({ ok: true, observation: { runs: [], events: [], ledger: [], callLimitHit: false } });`,
  );
  await expectStopped(forged, /postMessage is not defined/);
});

Deno.test("the wall-clock deadline reports a run that takes too long", async () => {
  const outcome = await runInSandbox(hostile(`for (;;) {}`), SCENARIO, {
    deadlineMs: 200,
    cpuTimeoutMs: 1000,
  });
  assert.equal(outcome.status, "deadline");
  const after = await runInSandbox(GOOD, SCENARIO);
  assert.equal(after.status, "completed");
});

Deno.test("a sweep without permission to start the sandbox is refused before anything is written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sweep-no-run-" });
  const out = `${dir}/run`;
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-write", "--allow-net", "--allow-env", "--allow-sys", "main.ts"]
        .concat(["sweep", "run", "--reference", "--compressions", "1", "--answers", "1", "--output", out]),
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 2, stderr);
    assert.match(stderr, /repair sandbox needs permission to run prlimit/);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
