import assert from "node:assert/strict";
import { join } from "node:path";
import { verifyRun } from "../src/store/verify.ts";
import { ROOT } from "./helpers/spawn.ts";

/** The real `sync` the stand-in execs, found on this machine's PATH. */
function realSync(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(join(dir, "sync")).isFile) return join(dir, "sync");
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) throw error;
    }
  }
  return undefined;
}

/**
 * Runs tests/helpers/sync_rounds.ts with a `sync` of its own first on PATH: it logs its arguments, then fails
 * (`fail`) or runs the real one. Returns the log's lines and the run's verify report.
 */
async function runRounds(
  dir: string,
  largeRounds: number,
  options: { fail?: boolean; permissions?: string[] } = {},
): Promise<{ calls: string[]; ok: boolean; problems: unknown[] }> {
  const real = realSync();
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  const log = join(dir, "sync.log");
  await Deno.writeTextFile(
    join(bin, "sync"),
    `#!/bin/sh\necho "$*" >> '${log}'\n${options.fail || !real ? "exit 1" : `exec '${real}' "$@"`}\n`,
    { mode: 0o755 },
  );
  const run = join(dir, "r");
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...(options.permissions ?? ["-A"]),
      "tests/helpers/sync_rounds.ts",
      run,
      String(largeRounds),
    ],
    cwd: ROOT,
    env: { PATH: `${bin}:${Deno.env.get("PATH") ?? ""}` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  assert.equal(new TextDecoder().decode(output.stdout).trim(), String(4 + 3 * largeRounds));
  let calls: string[] = [];
  try {
    calls = (await Deno.readTextFile(log)).split("\n").filter((line) => line !== "");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const report = await verifyRun(run);
  return { calls, ok: report.ok, problems: report.problems };
}

Deno.test({
  name: "a large round of blobs is made durable by one `sync -f` of the run's objects; a small one is not",
  ignore: Deno.build.os !== "linux" || realSync() === undefined,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const { calls, ok, problems } = await runRounds(dir, 2);
      // Two large rounds, each shared by the three nodes recorded at once; the 3-blob round fsyncs its blobs;
      // then a large round, and the two small groups written while it ran, synced together in one more.
      assert.deepEqual(calls, Array(4).fill(`-f ${join(dir, "r", "objects")}`));
      assert.ok(ok, JSON.stringify(problems));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "when `sync -f` fails, the round falls back to an fsync per blob and it is not tried again",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const { calls, ok, problems } = await runRounds(dir, 2, { fail: true });
      assert.deepEqual(calls, [`-f ${join(dir, "r", "objects")}`]);
      assert.ok(ok, JSON.stringify(problems));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "without permission to run `sync`, blobs are fsynced and the run verifies",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const { calls, ok, problems } = await runRounds(dir, 2, {
        permissions: [
          "--allow-read",
          "--allow-write",
          "--allow-env",
          "--allow-sys",
          "--allow-run=prlimit",
          "--no-prompt",
        ],
      });
      assert.deepEqual(calls, []);
      assert.ok(ok, JSON.stringify(problems));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
