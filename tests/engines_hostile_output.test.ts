/**
 * An outside engine's output is hostile input, bounded and checked before anything tokenizes it: output past
 * the bound ends the call there (the process group killed) and fails it, invalid UTF-8 is a named failure
 * (never replaced by U+FFFD with status ok), and JSON that is not I-JSON fails with the reason. Real
 * subprocesses (python3).
 */
import assert from "node:assert/strict";
import { createExecEngine } from "../src/methods/engines/exec_engine.ts";
import { EngineError } from "../src/methods/engines/engine.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";

const counter = await loadTokenCounter();
const messages = [{ role: "user" as const, content: "hello" }];
const options = { budgetTokens: 1000, currentTokens: 10, counter };

async function failure(script: string, maxOutputBytes?: number): Promise<{ message: string; ms: number }> {
  const engine = createExecEngine(`python3 -c ${JSON.stringify(script)}`, {
    timeoutMs: 20_000,
    argv: ["python3", "-c", script],
    ...(maxOutputBytes ? { maxOutputBytes } : {}),
  });
  const started = performance.now();
  try {
    await engine.compress(messages, options);
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    return { message: error.message, ms: performance.now() - started };
  }
  throw new Error("the engine call succeeded");
}

Deno.test("an engine that floods stdout (endless output) is cut off at the bound, killed, and fails", async () => {
  const { message } = await failure(
    "import sys\nwhile True: sys.stdout.write('x' * 65536)",
    1 << 20,
  );
  assert.match(message, /output over its 1048576-byte bound \(--max-response-bytes\): cut off \(killed\)/);
  // Cut off at the bound, not at the time limit (that failure would say "timed out"); speed: bench/.
});

Deno.test("invalid UTF-8 from an engine is a named failure", async () => {
  const { message } = await failure(
    'import sys\nsys.stdout.buffer.write(b\'{"messages":[{"role":"user","content":"\\xff\\xfe"}]}\')',
  );
  assert.match(message, /output is not valid UTF-8/);
});

Deno.test("an engine reply that is not I-JSON (a lone surrogate) fails with the reason", async () => {
  const { message } = await failure(
    'print(\'{"messages":[{"role":"user","content":"a \\\\ud800 b"}]}\')',
  );
  assert.match(
    message,
    /output is not I-JSON: not I-JSON at \$\.messages\[0\]\.content: string with a lone surrogate/,
  );
});

Deno.test("engines run --max-response-bytes bounds an outside engine's output; the run exits 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "engines_hostile_output_" });
  try {
    const flood = `${dir}/flood.py`;
    await Deno.writeTextFile(flood, "import sys\nsys.stdin.read()\nsys.stdout.write('x' * (3 << 20))\n");
    const { runCli } = await import("./helpers/spawn.ts");
    const result = await runCli([
      "engines",
      "run",
      "--reference",
      "--engine",
      `flood=exec:python3 ${flood}`,
      "--max-response-bytes",
      "2000000",
      "--output",
      `${dir}/run`,
      "-q",
    ]);
    // An engine that floods its output answered (wrongly): its row fails, honestly measured; the run exits 0.
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /^FAILED/m);
    const report = await Deno.readTextFile(`${dir}/run/REPORT.md`);
    assert.match(
      report,
      /flood: output over its 2000000-byte bound \(--max-response-bytes\): cut off \(killed\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
