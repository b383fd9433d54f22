/**
 * The smaller hostile cases of issue 20: a negative number given as its own word prints one clear line; a
 * number with a space is refused in a list or range option as everywhere; a huge bad value is never echoed
 * whole; a full disk (ENOSPC) names the path it was writing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "cli_small_hostile_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const collected = await runCli(["hotpot", "collect", "--questions", "1", "--output", join(dir, "c"), "-q"]);
assert.equal(collected.code, 0, collected.stderr);
const corpus = join(dir, "c", "corpus.json");

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

Deno.test("--compressions -1 (a negative number as its own word) prints one clear line, exit 2", async () => {
  const result = await runCli(["hotpot", "run", "--corpus", corpus, "--reference", "--compressions", "-1"]);
  assert.equal(result.code, 2);
  assert.equal(lines(result.stderr).length, 1, result.stderr);
  assert.match(result.stderr, /--compressions needs a value, and the word after it starts with "-"/);
});

Deno.test("--top-n ' 2' and --input-cap '2400, 3600' are refused like other numbers with spaces", async () => {
  const topN = await runCli(["sweep", "run", "--reference", "--top-n", " 2"]);
  assert.equal(topN.code, 2, topN.stdout);
  assert.match(topN.stderr, /--top-n " 2": expected N or N-M/);
  const caps = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpus,
    "--reference",
    "--input-cap",
    "2400, 3600",
  ]);
  assert.equal(caps.code, 2);
  assert.match(caps.stderr, /--input-cap "2400, 3600": " 3600" is not a whole number/);
  const answers = await runCli(["hotpot", "run", "--corpus", corpus, "--reference", "--answers", " 2"]);
  assert.equal(answers.code, 2);
});

Deno.test("a 131 KB bad value is not echoed whole in its error line", async () => {
  for (
    const [option, value] of [["--compressions", "7".repeat(131_000) + "x"], [
      "--methods",
      "m".repeat(131_000),
    ]]
  ) {
    const result = await runCli(["hotpot", "run", "--corpus", corpus, "--reference", option, value]);
    assert.equal(result.code, 2);
    assert.equal(lines(result.stderr).length, 1);
    assert.ok(result.stderr.length < 2_000, `${option}: ${result.stderr.length} characters`);
    assert.match(result.stderr, new RegExp(option));
  }
});

Deno.test("a full disk (ENOSPC) names the path being written, exit 2, no stack trace", async () => {
  const mount = join(dir, "full");
  await Deno.mkdir(mount);
  const mounted = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=300k", "tmpfs", mount],
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  if (!mounted.success) {
    console.log("*** SKIPPED (cannot mount a small tmpfs here): ENOSPC ***");
    return;
  }
  try {
    const run = join(mount, "run");
    const result = await runCli(["hotpot", "run", "--corpus", corpus, "--reference", "--output", run, "-q"]);
    assert.equal(result.code, 2, result.stderr);
    const error = lines(result.stderr).filter((l) => l.startsWith("error:"));
    assert.equal(error.length, 1, result.stderr);
    // The run (or, while it is created, its temporary sibling: a run keeps ~2 MB of program source) is named.
    assert.match(
      error[0],
      new RegExp(`error: writing ${mount}/(run/|\\.run\\.creating-)\\S+: no space left on the device`),
    );
    assert.doesNotMatch(result.stderr, /internal error|at .*\.ts:\d+/);
  } finally {
    await new Deno.Command("umount", { args: [mount] }).output();
  }
});
