/**
 * A run that failed says so: conditions that failed for a provider or engine reason (not a method's honest
 * invalidity) end the run with the count per kind, the first error (redacted), the exact `--retry-failed`
 * command (or, for engines, the command that runs it again) and exit 1; a run whose conditions all completed
 * exits 0.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { failureOf, FailureTally } from "../src/pipeline/failures.ts";
import { retryCommandLine } from "../src/core/program_name.ts";
import { runCli } from "./helpers/spawn.ts";

const KEY = "sk-first-day-secret-0001";

Deno.test("failureOf: failed calls and crashed engines count; honest invalidity does not", () => {
  const failed = { status: "failed" as const, endpoint: "chat" as const, error: "HTTP 500" };
  const ok = { status: "ok" as const, endpoint: "chat" as const };
  const invalid = (stage: string, reason: string) => ({ stage, status: "invalid" as const, reason });
  assert.deepEqual(failureOf(invalid("sweep-answer", "x"), [failed]), {
    kind: "chat call",
    error: "HTTP 500",
  });
  assert.equal(
    failureOf(invalid("sweep-rank", "x"), [{ ...failed, endpoint: "systemone" }])?.kind,
    "decision-model call",
  );
  assert.equal(failureOf({ stage: "sweep-answer", status: "ok" }, [failed]), null, "retried to success");
  assert.equal(
    failureOf(invalid("hotpot-answer", "provider counted 4000 input tokens, over the 3600 ceiling"), [ok]),
    null,
  );
  assert.equal(failureOf(invalid("hotpot-answer", "context invalid"), []), null, "downstream of a failure");
  assert.equal(failureOf(invalid("hotpot-context", "over budget: 4100 > 3600"), []), null);
  assert.equal(
    failureOf(invalid("engines-engine", "mine: timed out after 100 ms (killed)"), [])?.kind,
    "engine",
  );
  assert.equal(
    failureOf(invalid("hotpot-engine", "engine x: broken tool pairing: call c1 has no result"), []),
    null,
  );
  assert.equal(failureOf(invalid("hotpot-engine", "collection invalid"), []), null);
  assert.equal(failureOf(invalid("engines-engine", "window grew from 10 to 12 tokens"), []), null);
  assert.equal(
    failureOf(invalid("engines-engine", 'b: output is not JSON (x): "{"'), []),
    null,
    "it answered",
  );
  assert.equal(
    failureOf(invalid("engines-engine", "f: output over its 9-byte bound (cut off (killed)"), []),
    null,
  );
  assert.equal(failureOf(invalid("engines-engine", "c: exited with code 3"), [])?.kind, "engine");
  assert.equal(failureOf(invalid("sweep-engine", "lean: cannot start 'x': not found"), [])?.kind, "engine");
  const tally = new FailureTally();
  tally.add({ ...invalid("a-answer", "r"), label: "answer q1" }, [failed]);
  tally.add({ ...invalid("a-answer", "r"), label: "answer q2" }, [failed]);
  tally.add({ ...invalid("a-context", "over"), label: "context q3" }, []);
  assert.deepEqual([tally.total, tally.first], [2, { label: "answer q1", error: "HTTP 500" }]);
});

Deno.test("retryCommandLine: the run's own words, without where it went, plus --retry-failed", () => {
  assert.equal(
    retryCommandLine(["sweep", "run", "--live", "--output", "runs/a", "--top-n", "1", "-q"], "runs/a"),
    "./compaction-bench sweep run --live --top-n 1 -q --retry-failed runs/a --output runs/a-retried",
  );
  assert.equal(
    retryCommandLine(
      ["hotpot", "run", "--corpus", "c.json", "--resume", "r/x/", "--env-file", ".env"],
      "r/x/",
    ),
    "./compaction-bench hotpot run --corpus c.json --env-file .env --retry-failed r/x/ --output r/x-retried",
  );
  assert.equal(
    retryCommandLine(["sweep", "run", "--output=o", "--frozen-run", "f", "--check-only", "--live"], "my run"),
    "./compaction-bench sweep run --live --retry-failed 'my run' --output 'my run-retried'",
  );
});

/** A provider that answers every request with HTTP 500 and a body that names the key it was sent. */
function failingProvider(): { url: string; close: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const auth = request.headers.get("authorization") ?? "";
    return new Response(
      JSON.stringify({ error: { message: `upstream down (${auth.length} characters of authorization)` } }),
      {
        status: 500,
        headers: { "content-type": "application/json" },
      },
    );
  });
  return { url: `http://127.0.0.1:${server.addr.port}/v1`, close: () => server.shutdown() };
}

Deno.test("a live sweep whose provider fails: exit 1, the count per kind, the first error redacted, the retry command", async () => {
  const dir = await Deno.makeTempDir({ prefix: "run_failures_" });
  const provider = failingProvider();
  try {
    const out = join(dir, "down");
    const run = await runCli(
      [
        "sweep",
        "run",
        "--live",
        "--compressions",
        "1",
        "--answers",
        "1",
        "--top-n",
        "1",
        "--max-retries",
        "0",
      ]
        .concat(["-q", "--output", out]),
      {
        LLM_BASE_URL: provider.url,
        DECISION_MODEL_BASE_URL: provider.url,
        LLM_API_KEY: KEY,
        DECISION_MODEL_API_KEY: KEY,
      },
    );
    assert.equal(run.code, 1, run.stderr);
    const text = run.stdout + run.stderr;
    assert.doesNotMatch(text, new RegExp(KEY), "the key is redacted");
    assert.match(
      run.stdout,
      /^FAILED: \d+ provider or engine call\(s\) failed after their retries \(\d+ chat calls?/m,
    );
    assert.match(run.stdout, /decision-model call/);
    assert.match(run.stdout, /^ {2}first error \(.+\): .*500/m);
    assert.ok(
      run.stdout.includes(
        `./compaction-bench sweep run --live --compressions 1 --answers 1 --top-n 1 --max-retries 0 -q ` +
          `--retry-failed ${out} --output ${out}-retried`,
      ),
      run.stdout,
    );
    assert.match(run.stderr, /^check failed: \d+ condition\(s\) failed for a provider or engine reason/m);
    // The run itself finished (sealed, verifiable): its failures are recorded, not lost.
    assert.equal((await runCli(["verify", out])).code, 0);
  } finally {
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an engines run whose engine crashes: exit 1, 'engine', and the command that runs it again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "run_failures_engines_" });
  try {
    const out = join(dir, "e");
    const run = await runCli([
      "engines",
      "run",
      "--reference",
      "-q",
      "--engine",
      "crash=exec:python3 -c 'import sys; sys.exit(3)'",
      "--engine",
      "truncate",
      "--output",
      out,
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stdout,
      /^FAILED: 1 provider or engine call\(s\) failed after their retries \(1 engine\)/m,
    );
    assert.match(run.stdout, /first error \(engine crash\): crash: exited with code 3/);
    assert.match(
      run.stdout,
      /this suite is not retried .* run it again: \.\/compaction-bench engines run .*--output \S+-again/,
    );
    // Honest outcomes only (every engine ran): exit 0.
    const fine = await runCli([
      "engines",
      "run",
      "--reference",
      "-q",
      "--engine",
      "truncate",
      "--output",
      join(dir, "f"),
    ]);
    assert.equal(fine.code, 0, fine.stderr);
    assert.doesNotMatch(fine.stdout, /FAILED/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
