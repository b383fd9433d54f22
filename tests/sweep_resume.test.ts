/**
 * `sweep run --resume`: a sweep killed with SIGKILL after some answers were journaled finishes from its journal
 * with the options it was started with; its results equal an uninterrupted run's byte for byte.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HANG_GUARD_MS, ROOT, runCli } from "./helpers/spawn.ts";

async function journaledAnswers(run: string): Promise<number> {
  try {
    const text = await Deno.readTextFile(join(run, "journal.jsonl"));
    return text.split("\n").filter((line) => line.endsWith("}") && line.includes('"stage":"sweep-answer"'))
      .length;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

/** Starts `sweep run ARGS --output OUT` slowed down, and SIGKILLs it once `answers` answers are journaled. */
async function killMidway(out: string, args: string[], answers: number): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", "sweep", "run", "--reference-delay-ms", "80", "--output", out, ...args],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + HANG_GUARD_MS;
  while (await journaledAnswers(out) < answers) {
    assert.ok(Date.now() < deadline, "the run journaled no answers in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill("SIGKILL");
  await child.status;
}

Deno.test("a sweep killed mid-way finishes with --resume DIR alone and equals an uninterrupted run", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sweep-resume-" });
  try {
    const options = ["--compressions", "2", "--answers", "2", "--quiet"];
    const whole = join(tmp, "whole");
    const uninterrupted = await runCli(["sweep", "run", "--reference", "--output", whole, ...options]);
    assert.equal(uninterrupted.code, 0, uninterrupted.stderr);

    const killed = join(tmp, "killed");
    await killMidway(killed, ["--reference", ...options], 5);
    await assert.rejects(Deno.stat(join(killed, "manifest.json")), Deno.errors.NotFound);

    const resumed = await runCli(["sweep", "run", "--resume", killed]);
    assert.equal(resumed.code, 0, resumed.stderr);
    for (const file of ["results.json", "aggregate.json"]) {
      const [a, b] = await Promise.all([whole, killed].map((r) => Deno.readTextFile(join(r, file))));
      assert.equal(b, a, `${file} differs after the resume`);
    }
    assert.equal((await runCli(["verify", killed])).code, 0);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a resumed --frozen-run sweep still reports zero compression calls of its own", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sweep-resume-frozen-" });
  try {
    const options = ["--compressions", "1", "--answers", "3", "--quiet"];
    const first = join(tmp, "first");
    assert.equal((await runCli(["sweep", "run", "--reference", "--output", first, ...options])).code, 0);
    const killed = join(tmp, "killed");
    await killMidway(killed, ["--reference", "--frozen-run", first, ...options], 3);
    const resumed = await runCli(["sweep", "run", "--resume", killed]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /compression calls: 0; reused nodes: 2/);
    assert.match(await Deno.readTextFile(join(killed, "REPORT.md")), /Compression calls: 0 /);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
