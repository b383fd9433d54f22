import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../src/errors.ts";
import { programIdentity } from "../src/program_identity.ts";
import { sha256Hex } from "../src/store/hash.ts";
import type { ResumeExpectation } from "../src/store/resume_check.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { verifyRun } from "../src/store/verify.ts";
import { findRuns } from "../src/store/find_runs.ts";
import { testHeader } from "./helpers/header.ts";
import { HANG_GUARD_MS, ROOT, runDeno } from "./helpers/spawn.ts";
import { describeTree } from "./helpers/tree.ts";

async function journalLines(run: string): Promise<number> {
  try {
    return (await Deno.readTextFile(join(run, "journal.jsonl"))).split("\n").length - 1;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + HANG_GUARD_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function spawnPipeline(args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tests/helpers/pipeline_cli.ts", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
}

/** Starts the test pipeline and kills it (SIGKILL) once `lines` journal lines are written. */
async function killedRun(run: string, lines: number): Promise<number> {
  const child = spawnPipeline(["--output", run, "--stages", "30", "--delay-ms", "20"]);
  await waitFor(async () => (await journalLines(run)) >= lines, "the run to get going");
  child.kill("SIGKILL");
  await child.output();
  return child.pid;
}

Deno.test("a second writer of a run is refused with a usage error naming the holder's pid", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await RunDir.create(join(dir, "run"), testHeader());
    await first.abandon();
    const holder = await RunDir.resume(join(dir, "run"));
    await assert.rejects(
      () => RunDir.resume(join(dir, "run")),
      (error: unknown) =>
        error instanceof UsageError && error.message.includes(`process ${Deno.pid}`) &&
        error.message.includes(".lock"),
    );
    await holder.abandon();
    const again = await RunDir.resume(join(dir, "run"));
    await again.finish();
    await assert.rejects(() => Deno.lstat(join(dir, "run", ".lock")), Deno.errors.NotFound);
    assert.deepEqual((await verifyRun(join(dir, "run"))).problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two concurrent --resume of one run: one finishes, the other exits 2 naming it, and the run equals an uninterrupted one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    const whole = join(dir, "whole");
    await killedRun(run, 4);
    const a = spawnPipeline(["--resume", run, "--stages", "30", "--delay-ms", "20"]);
    await waitFor(async () => {
      try {
        return (await Deno.readTextFile(join(run, ".lock"))).includes(`"pid":${a.pid}`);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return false;
        throw error;
      }
    }, "the first resume to take the lock");
    const b = await runDeno("tests/helpers/pipeline_cli.ts", ["--resume", run, "--stages", "30"]);
    const first = await a.output();
    assert.equal(first.code, 0, new TextDecoder().decode(first.stderr));
    assert.equal(b.code, 2, b.stderr);
    assert.match(b.stderr, new RegExp(`being written by process ${a.pid}`));
    assert.deepEqual((await verifyRun(run)).problems, []);
    const reference = await runDeno("tests/helpers/pipeline_cli.ts", ["--output", whole, "--stages", "30"]);
    assert.equal(reference.code, 0, reference.stderr);
    assert.deepEqual(
      await Deno.readFile(join(run, "results.json")),
      await Deno.readFile(join(whole, "results.json")),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the lock of a killed writer is taken over by the next resume, which names it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    const pid = await killedRun(run, 3);
    const stale = JSON.parse(await Deno.readTextFile(join(run, ".lock")));
    assert.equal(stale.pid, pid, "the killed writer's pid is in its lock");
    const resumed = await RunDir.resume(run);
    assert.equal(resumed.takenOverFrom?.pid, pid);
    assert.equal(JSON.parse(await Deno.readTextFile(join(run, ".lock"))).pid, Deno.pid);
    await resumed.abandon();
    await assert.rejects(() => Deno.lstat(join(run, ".lock")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resume refuses another program, tokenizer or protocol, naming the difference, and changes nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    const header = {
      ...testHeader(),
      tokenizer: { name: "qwen3", hash: sha256Hex("tok") },
      protocol: { ceiling: 3600 },
    };
    await (await RunDir.create(run, header)).abandon();
    // Taking and releasing the lock touches the directory's mtime only; every file stays as it was.
    const files = async () => (await describeTree(run)).filter((line) => !line.startsWith(". "));
    const before = await files();
    const same: ResumeExpectation = {
      program: header.program,
      tokenizer: header.tokenizer,
      protocol: header.protocol,
    };
    const cases: [ResumeExpectation, RegExp][] = [
      [
        { ...same, program: { ...header.program, source_hash: sha256Hex("other") } },
        /program differs .*program\.source_hash/,
      ],
      [
        { ...same, tokenizer: { name: "qwen3", hash: sha256Hex("other") } },
        /tokenizer differs .*tokenizer\.hash/,
      ],
      [{ ...same, tokenizer: null }, /tokenizer differs/],
      [
        { ...same, protocol: { ceiling: 4000 } },
        /protocol differs .*protocol\.ceiling: run has 3600, this invocation 4000/,
      ],
    ];
    for (const [expect, message] of cases) {
      await assert.rejects(
        () => RunDir.resume(run, expect),
        (error: unknown) => error instanceof UsageError && message.test(error.message),
      );
      assert.deepEqual(await files(), before, "a refused resume leaves the run as it was");
    }
    const ok = await RunDir.resume(run, same);
    await ok.finish();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resume through a suite command refuses a changed protocol with exit 2", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    await killedRun(run, 3);
    const other = await runDeno("tests/helpers/pipeline_cli.ts", ["--resume", run, "--stages", "31"]);
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /protocol differs .*protocol\.stages: run has 30, this invocation 31/);
    const same = await runDeno("tests/helpers/pipeline_cli.ts", ["--resume", run, "--stages", "30"]);
    assert.equal(same.code, 0, same.stderr);
    const header = JSON.parse((await Deno.readTextFile(join(run, "journal.jsonl"))).split("\n")[0]).header;
    assert.deepEqual(header.program, await programIdentity());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run is created atomically: a killed creation leaves no run, and the next creation cleans up after it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    // A creation with a large declared source, killed as soon as its temp sibling appears.
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { RunDir } from "./src/store/run_dir.ts";
         import { testHeader } from "./tests/helpers/header.ts";
         await RunDir.create(${JSON.stringify(run)}, testHeader(), { big: new Uint8Array(64 << 20).fill(7) });
         await new Promise(() => {});`,
      ],
      cwd: ROOT,
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const entries = async () => (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
    await waitFor(async () => (await entries()).length > 0, "the creation to start");
    child.kill("SIGKILL");
    await child.output();
    const left = await entries();
    if (left.includes("run")) {
      // The kill came after the rename: what is there must be a resumable run.
      await (await RunDir.resume(run)).abandon();
    } else {
      assert.equal(left.length, 1);
      assert.match(left[0], /^\.run\.creating-\d+-[0-9a-f]{8}$/);
      assert.deepEqual((await findRuns(dir)).runs, [], "a half-built run is not listed as a run");
      const created = await RunDir.create(run, testHeader());
      await created.finish();
      assert.deepEqual(await entries(), ["run"], "the leftover of the killed creation was removed");
      assert.deepEqual((await verifyRun(run)).problems, []);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a creation in progress holds its lock from the start, and leaves nothing beside the run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await RunDir.create(join(dir, "run"), testHeader());
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), ["run"]);
    await assert.rejects(() => RunDir.resume(join(dir, "run")), /being written by process/);
    await run.finish();
    assert.deepEqual((await verifyRun(run.path)).problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
