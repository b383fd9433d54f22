/**
 * Peak memory of a live sweep whose every answer attacks the repair sandbox (the attacks of issue 11: an
 * observation rewrite, a thrown object with a 128 MiB message, a typed-array bomb, a 256 MiB error thrown
 * at load; see tests/helpers/hostile_chat.ts), and the cost of the sandbox on honest repairs.
 *
 * It runs `sweep run --live --compressions 1 --answers 2` against the hostile endpoint and polls /proc every
 * 20 ms, summing the resident memory of the CLI process and all its descendants (the sandbox children).
 * Target: the peak of the whole tree stays under 2 GiB, and the run exits 0 and verifies. Then it times the
 * six checks of one honest repair (one child per answer). Linux only (reads /proc).
 *
 * Usage: `deno run -A bench/sandbox_attacks.ts`
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { outputWithPeak } from "./tree_rss.ts";
import { runRepairChecks } from "../src/suites/sweep/repair_checks.ts";
import { loadSweepFixture, paymentsRepairSpec } from "../src/suites/sweep/fixture.ts";
import { startHostileChat } from "../tests/helpers/hostile_chat.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LIMIT = 2 * 1024 ** 3;

const hostile = await startHostileChat();
const dir = await Deno.makeTempDir({ prefix: "bench-sandbox-attacks-" });
const out = join(dir, "run");
try {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
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
    ]
      .concat(["--output", out]),
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      LLM_API_KEY: "x",
      LLM_BASE_URL: hostile.chatBaseUrl,
      DECISION_MODEL_API_KEY: "x",
      DECISION_MODEL_BASE_URL: hostile.referenceBaseUrl,
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const { output: result, peak } = await outputWithPeak(child);
  const seconds = (performance.now() - started) / 1000;
  const verify = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", "verify", out],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).output();
  console.log(
    `hostile sweep: ${hostile.attacksSent()} attack answers, exit ${result.code}, ` +
      `verify exit ${verify.code}, ${seconds.toFixed(1)} s`,
  );
  console.log(
    `peak RSS of the process tree: ${(peak / 1024 ** 2).toFixed(0)} MiB ` +
      `(target < ${LIMIT / 1024 ** 3} GiB: ${peak < LIMIT ? "met" : "MISSED"})`,
  );
  if (result.code !== 0) console.log(new TextDecoder().decode(result.stderr).slice(-2000));
} finally {
  await hostile.close();
  await Deno.remove(dir, { recursive: true });
}

const honest = "```js\n" + `async function chargeWithRetry(client, request) {
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
const spec = paymentsRepairSpec((await loadSweepFixture()).repair);
const times: number[] = [];
for (let i = 0; i < 10; i++) {
  const t = performance.now();
  await runRepairChecks(honest, spec);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(
  `six checks of one honest repair (one child process): median ${times[5].toFixed(0)} ms, ` +
    `min ${times[0].toFixed(0)} ms over 10`,
);
