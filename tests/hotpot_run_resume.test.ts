/**
 * `hotpot run --resume`: a run killed with SIGKILL after some answers were journaled finishes from its journal,
 * and its results.json and aggregate.json equal an uninterrupted run's byte for byte; verify passes on it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readManifest } from "../src/store/run_dir.ts";
import { HANG_GUARD_MS, ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_run_resume_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** Journaled nodes of `stage` in a run directory (lines `{"node": {...}}` of journal.jsonl). */
async function journaled(run: string, stage: string): Promise<number> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(run, "journal.jsonl"));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
  let count = 0;
  for (const line of text.split("\n")) {
    if (!line.endsWith("}")) continue; // a line being written
    const parsed = JSON.parse(line);
    if (parsed.node?.stage === stage) count++;
  }
  return count;
}

Deno.test("a run killed mid-way finishes with --resume and equals an uninterrupted run byte for byte", async () => {
  const corpus = join(dir, "collect", "corpus.json");
  const collected = await runCli([
    "hotpot",
    "collect",
    "--questions",
    "4",
    "--output",
    join(dir, "collect"),
    "-q",
  ]);
  assert.equal(collected.code, 0, collected.stderr);

  const whole = join(dir, "whole");
  const uninterrupted = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpus,
    "--reference",
    "--output",
    whole,
    "-q",
  ]);
  assert.equal(uninterrupted.code, 0, uninterrupted.stderr);

  const killed = join(dir, "killed");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "main.ts",
      "hotpot",
      "run",
      "--corpus",
      corpus,
      "--reference",
      "--reference-delay-ms",
      "60",
      "--output",
      killed,
      "-q",
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + HANG_GUARD_MS;
  let answers = 0;
  while ((answers = await journaled(killed, "hotpot-answer")) < 10) {
    assert.ok(Date.now() < deadline, "the run journaled no answers before the hang guard");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill("SIGKILL");
  const status = await child.status;
  assert.equal(status.success, false);
  assert.equal(status.signal, "SIGKILL");
  const planned = 4 * 4 * 2 * 2;
  const atKill = await journaled(killed, "hotpot-answer");
  assert.ok(atKill >= answers && atKill < planned, `killed after ${atKill} of ${planned} answers`);
  await assert.rejects(Deno.stat(join(killed, "manifest.json")), Deno.errors.NotFound);

  const resumed = await runCli(["hotpot", "run", "--resume", killed, "-q"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  for (const file of ["results.json", "aggregate.json"]) {
    assert.deepEqual(await Deno.readFile(join(killed, file)), await Deno.readFile(join(whole, file)), file);
  }
  const manifest = await readManifest(killed);
  assert.equal(manifest.nodes.filter((n) => n.stage === "hotpot-answer").length, planned);
  const verified = await runCli(["verify", killed]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});
