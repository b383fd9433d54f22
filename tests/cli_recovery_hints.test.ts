/**
 * Hints for a person who slips: a mistyped option names the one meant, SIGINT/SIGTERM end a run with the exact
 * `--resume` line, `verify` of an unfinished run names it too, and a selection the dataset cannot fill names the
 * options that change it with what each filter removed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { editDistance, nearestOption } from "../src/cli/option_suggest.ts";
import { cliCommand } from "../src/core/program_name.ts";
import { interruptedLine, resumeCommandLine } from "../src/cli/interrupt_hint.ts";
import { suiteNamed } from "../src/suites/registry.ts";
import { HANG_GUARD_MS, ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "cli_recovery_hints_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test("nearestOption: a slip gets the option meant, a stranger nothing", () => {
  const known = ["help", "output", "resume", "corpus", "reference", "min-chars", "max-chars"];
  assert.equal(editDistance("ouput", "output"), 1);
  assert.equal(editDistance("ab", "ba"), 1);
  assert.equal(nearestOption("--ouput", known), "output");
  assert.equal(nearestOption("--refrence", known), "reference");
  assert.equal(nearestOption("--min-chras=3", known), "min-chars");
  assert.equal(nearestOption("--zzz", known), null);
  assert.equal(nearestOption("--corp", known), "corpus"); // a unique prefix
});

Deno.test("an unknown option is answered with the nearest known one and balanced quotes", async () => {
  const typo = await runCli([
    "hotpot",
    "run",
    "--reference",
    "--corpus",
    "x.json",
    "--ouput",
    join(dir, "x"),
  ]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown option --ouput; did you mean --output\?/);
  assert.match(typo.stderr, /see '\.\/compaction-bench hotpot run --help'/);
  for (const line of typo.stderr.split("\n")) assert.equal((line.match(/'/g) ?? []).length % 2, 0, line);
  const far = await runCli(["verify", "--zzzz", "x"]);
  assert.equal(far.code, 2);
  assert.match(far.stderr, /unknown option --zzzz \(see/);
  assert.doesNotMatch(far.stderr, /did you mean/);
});

Deno.test("the resume line names the launcher, the command and the directory, quoted for a shell", () => {
  assert.equal(
    resumeCommandLine(suiteNamed("hotpot"), "runs/a b"),
    "./compaction-bench hotpot run --resume 'runs/a b'",
  );
  assert.equal(resumeCommandLine(suiteNamed("sweep"), "r"), "./compaction-bench sweep run --resume r");
  assert.equal(
    resumeCommandLine(suiteNamed("hotpot-collect"), "r"),
    "./compaction-bench hotpot collect --resume r",
  );
  assert.equal(resumeCommandLine(suiteNamed("engines"), "r"), null);
  assert.equal(resumeCommandLine(undefined, "r"), null);
  assert.equal(cliCommand("verify", "it's"), `./compaction-bench verify 'it'\\''s'`);
});

Deno.test("SIGINT and SIGTERM end a run with its --resume line; verify of the half-written run names it", async () => {
  const collect = await runCli(["hotpot", "collect", "-q", "--questions", "4", "--output", join(dir, "c")]);
  assert.equal(collect.code, 0, collect.stderr);
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    const out = join(dir, `run-${signal}`);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "main.ts", "hotpot", "run", "--reference", "--reference-delay-ms", "200"].concat(
        ["--corpus", join(dir, "c", "corpus.json"), "--output", out],
      ),
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    const deadline = Date.now() + HANG_GUARD_MS;
    // Wait until the run has journaled something (its directory and header exist).
    while (true) {
      try {
        if ((await Deno.readTextFile(join(out, "journal.jsonl"))).split("\n").length > 2) break;
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      assert.ok(Date.now() < deadline, "the run journaled nothing before the hang guard");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill(signal);
    const done = await child.output();
    assert.equal(done.code, code, signal);
    const stderr = new TextDecoder().decode(done.stderr);
    assert.match(
      stderr,
      new RegExp(
        `interrupted \\(${signal}\\): .*continue it with: \\./compaction-bench hotpot run --resume ${out}`,
      ),
    );
    const verified = await runCli(["verify", out]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /unfinished/);
    assert.ok(
      verified.stdout.includes(
        `the run never finished; continue it with: ./compaction-bench hotpot run --resume ${out}`,
      ),
      verified.stdout,
    );
  }
});

Deno.test("a selection real records cannot fill names --min-chars/--max-chars and the quotas with counts", async () => {
  const real = join(ROOT, "tests", "fixtures", "shared_data", "hotpot_dev_real20.official.json");
  const refused = await runCli([
    "hotpot",
    "collect",
    "--scripted",
    "--dataset",
    real,
    "--output",
    join(dir, "s"),
  ]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /bridge 3\/15, comparison 2\/15/);
  assert.match(refused.stderr, /chars_out_of_range 15/);
  assert.match(refused.stderr, /--min-chars\/--max-chars, now 6000–32000\), which removed 15 record\(s\)/);
  assert.match(refused.stderr, /--bridge 3 --comparison 2/);
  await assert.rejects(Deno.stat(join(dir, "s")), Deno.errors.NotFound);
});

Deno.test("an out-of-range value is named first, then what it must be", async () => {
  const capped = await runCli(["hotpot", "run", "--reference", "--corpus", "x.json", "--input-cap", "100"]);
  assert.equal(capped.code, 2);
  assert.match(capped.stderr, /--input-cap 100: must be a whole number from 256 to 10000000\n/);
  assert.doesNotMatch(capped.stderr, /\(got/);
  const reserve = await runCli([
    "hotpot",
    "run",
    "--reference",
    "--corpus",
    "x.json",
    "--reserve",
    "999999999",
  ]);
  assert.match(reserve.stderr, /--reserve 999999999: must be at most 100000\n/);
});

Deno.test("a signal before the run directory exists says nothing was written; after, the resume line", async () => {
  const run = join(dir, "early");
  assert.match(
    interruptedLine(suiteNamed("hotpot"), run),
    new RegExp(`^stopped before ${run} was created: nothing was written, so there is nothing to --resume`),
  );
  assert.match(
    interruptedLine(suiteNamed("hotpot"), undefined),
    /stopped before its run directory was created/,
  );
  await Deno.mkdir(run);
  await Deno.writeTextFile(join(run, "journal.jsonl"), "{}\n");
  assert.equal(
    interruptedLine(suiteNamed("hotpot"), run),
    `the run is unfinished; continue it with: ./compaction-bench hotpot run --resume ${run}`,
  );
  assert.match(interruptedLine(suiteNamed("engines"), run), /cannot be resumed, start it again/);
});
