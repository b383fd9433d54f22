/**
 * A passing `--check-only` reads as a pass: its answers are "not sent (check-only)", never "failed"; without
 * `--output` it leaves no run behind (no stray folder in runs/); and `--check-only --reference` is refused with
 * words that match the refusal (not "ignored").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "check_only_ux_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test("a passing check-only run without --output prints a pass and writes nothing into runs/", async () => {
  const collect = await runCli(["hotpot", "collect", "-q", "--questions", "2", "--output", join(dir, "c")]);
  assert.equal(collect.code, 0, collect.stderr);
  const corpus = join(dir, "c", "corpus.json");
  const frozen = join(dir, "frozen");
  const ran = await runCli(["hotpot", "run", "--reference", "-q", "--corpus", corpus, "--output", frozen]);
  assert.equal(ran.code, 0, ran.stderr);
  const cwd = join(dir, "elsewhere");
  await Deno.mkdir(cwd);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", join(ROOT, "deno.json"), join(ROOT, "main.ts"), "hotpot", "run"].concat(
      ["--check-only", "--frozen-run", frozen, "--corpus", corpus],
    ),
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.match(stderr, /answer (\d+)\/\1 done .*· \1 not sent \(check-only\)/);
  assert.doesNotMatch(stderr, /answer .* failed/);
  assert.match(stdout, /ok: every answer input equals the frozen run's/);
  assert.match(stdout, /run: not kept \(give --output DIR to keep the check-only run\)/);
  assert.deepEqual([...Deno.readDirSync(cwd)], [], "the check-only run left something behind");

  const kept = await runCli(
    ["hotpot", "run", "--check-only", "--frozen-run", frozen, "--corpus", corpus].concat(
      ["--output", join(dir, "kept"), "-q"],
    ),
  );
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, new RegExp(`run: ${join(dir, "kept")}`));
  await Deno.stat(join(dir, "kept", "manifest.json"));

  const reference = await runCli(
    ["hotpot", "run", "--check-only", "--reference", "--frozen-run", frozen].concat(
      ["--corpus", corpus, "--output", join(dir, "r")],
    ),
  );
  assert.equal(reference.code, 2);
  assert.match(reference.stderr, /--check-only: --reference is not allowed: a check-only run sends nothing/);
  assert.doesNotMatch(reference.stderr, /ignored/);
});
