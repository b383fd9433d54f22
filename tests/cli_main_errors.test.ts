/**
 * The CLI's last net: an error no command mapped never ends in a stack trace. A file-system error still names
 * its path in one line (exit 2); anything else is one "internal error" line (exit 3), with the stack only when
 * COMPACTION_BENCH_DEBUG=1.
 */
import assert from "node:assert/strict";
import { main } from "../main.ts";
import { COMMANDS } from "../src/cli/commands.ts";

async function capture(argv: string[]): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  try {
    return { code: await main(argv), stderr: lines.join("\n") };
  } finally {
    console.error = error;
  }
}

function withCommand(run: () => Promise<number>): void {
  COMMANDS["test-boom"] = { summary: "test only", run };
}

Deno.test("an unexpected error is one line naming it, exit 3, without a stack trace", async () => {
  withCommand(() => Promise.reject(new TypeError("something is undefined\n    at somewhere (file.ts:1:1)")));
  try {
    const { code, stderr } = await capture(["test-boom"]);
    assert.equal(code, 3);
    assert.equal(stderr.split("\n").length, 1, stderr);
    assert.match(
      stderr,
      /^internal error: TypeError: something is undefined \(a bug; COMPACTION_BENCH_DEBUG=1/,
    );
    assert.doesNotMatch(stderr, /^\s+at /m);
  } finally {
    delete COMMANDS["test-boom"];
  }
});

Deno.test("an unmapped file-system error names its path in one line and exits 2", async () => {
  withCommand(async () => {
    await Deno.readFile("/nonexistent/compaction-bench-test");
    return 0;
  });
  try {
    const { code, stderr } = await capture(["test-boom"]);
    assert.equal(code, 2);
    assert.match(stderr, /^error: No such file or directory .*\/nonexistent\/compaction-bench-test/);
    assert.equal(stderr.split("\n").length, 1, stderr);
  } finally {
    delete COMMANDS["test-boom"];
  }
});

Deno.test("COMPACTION_BENCH_DEBUG=1 prints the stack trace of an unexpected error", async () => {
  withCommand(() => Promise.reject(new RangeError("deep")));
  Deno.env.set("COMPACTION_BENCH_DEBUG", "1");
  try {
    const { code, stderr } = await capture(["test-boom"]);
    assert.equal(code, 3);
    assert.match(stderr, /RangeError: deep\n\s+at /);
  } finally {
    Deno.env.delete("COMPACTION_BENCH_DEBUG");
    delete COMMANDS["test-boom"];
  }
});
