/**
 * `hotpot collect` and `hotpot run` through the real CLI: filter counts, impossible quotas and bad input
 * (missing or corrupt corpus, existing output, --live without credentials) each exit 2 naming the culprit.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_cli_errors_" });
const collectDir = join(dir, "collect");
const corpusPath = join(collectDir, "corpus.json");
const collected = await runCli(["hotpot", "collect", "--questions", "4", "--output", collectDir]);

globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

const SelectionSchema = z.object({
  considered: z.number().int(),
  removed: z.record(z.string(), z.number().int()),
  skipped_quota_full: z.number().int(),
  quota_met: z.boolean(),
  counts: z.object({
    bridge: z.object({ selected: z.number(), wanted: z.number() }),
    comparison: z.object({ selected: z.number(), wanted: z.number() }),
  }),
});

Deno.test("hotpot collect prints the filter counts and records them in selection.json", async () => {
  assert.equal(collected.code, 0, collected.stderr);
  assert.match(collected.stdout, /collected 4\/4 valid trajectories/);
  const selection = SelectionSchema.parse(
    JSON.parse(await Deno.readTextFile(join(collectDir, "selection.json"))),
  );
  assert.equal(selection.quota_met, true);
  assert.deepEqual(selection.counts, {
    bridge: { selected: 2, wanted: 2 },
    comparison: { selected: 2, wanted: 2 },
  });
  const removedText = Object.entries(selection.removed).map(([k, v]) => `${k} ${v}`).join(", ");
  assert.ok(
    collected.stderr.includes(`considered ${selection.considered} record(s); removed: ${removedText}`),
  );
  const corpus = JSON.parse(await Deno.readTextFile(corpusPath));
  assert.equal(corpus.selection.considered, selection.considered);
  assert.deepEqual(corpus.selection.removed, selection.removed);
  assert.equal(corpus.questions.length, 4);
});

Deno.test("hotpot collect with an impossible quota exits 2, names the counts and writes nothing", async () => {
  const out = join(dir, "too-many");
  const result = await runCli(["hotpot", "collect", "--questions", "200", "--output", out, "-q"]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /not enough records pass the filters \(bridge \d+\/100, comparison \d+\/100; removed: /,
  );
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("hotpot run without --corpus exits 2 and asks for it", async () => {
  const result = await runCli(["hotpot", "run", "--reference", "--output", join(dir, "no-corpus")]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--corpus FILE is required/);
  await assert.rejects(Deno.stat(join(dir, "no-corpus")), Deno.errors.NotFound);
});

Deno.test("hotpot run with a corrupt corpus names the file and the field", async () => {
  const corpus = JSON.parse(await Deno.readTextFile(corpusPath));
  corpus.questions[1].type = "trivia";
  const bad = join(dir, "bad-corpus.json");
  await Deno.writeTextFile(bad, JSON.stringify(corpus));
  const result = await runCli([
    "hotpot",
    "run",
    "--corpus",
    bad,
    "--reference",
    "--output",
    join(dir, "bad"),
  ]);
  assert.equal(result.code, 2);
  assert.ok(result.stderr.includes(bad), result.stderr);
  assert.match(result.stderr, /field questions\.1\.type/);

  const notJson = join(dir, "not-json.json");
  await Deno.writeTextFile(notJson, "{ truncated");
  const second = await runCli([
    "hotpot",
    "run",
    "--corpus",
    notJson,
    "--reference",
    "--output",
    join(dir, "bad2"),
  ]);
  assert.equal(second.code, 2);
  assert.match(second.stderr, /not-json\.json: not valid JSON/);
});

Deno.test("hotpot run refuses an existing --output and leaves it untouched", async () => {
  const existing = join(dir, "existing");
  await Deno.mkdir(existing);
  await Deno.writeTextFile(join(existing, "keep.txt"), "mine");
  const result = await runCli(["hotpot", "run", "--corpus", corpusPath, "--reference", "--output", existing]);
  assert.equal(result.code, 2, result.stderr);
  assert.ok(result.stderr.includes(existing), result.stderr);
  assert.deepEqual([...Deno.readDirSync(existing)].map((e) => e.name), ["keep.txt"]);
  assert.equal(await Deno.readTextFile(join(existing, "keep.txt")), "mine");
});

Deno.test("hotpot run --live without credentials exits 2 naming the variable", async () => {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "main.ts",
      "hotpot",
      "run",
      "--corpus",
      corpusPath,
      "--live",
      "--output",
      join(dir, "live"),
    ],
    cwd: ROOT,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 2, stderr);
  assert.match(stderr, /LLM_API_KEY/);
  await assert.rejects(Deno.stat(join(dir, "live")), Deno.errors.NotFound);
});

Deno.test("hotpot collect with a missing --hermes-sessions directory exits 2 and writes nothing", async () => {
  const out = join(dir, "no-sessions");
  const result = await runCli([
    "hotpot",
    "collect",
    "--hermes-sessions",
    join(dir, "missing-sessions"),
    "--questions",
    "2",
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--hermes-sessions .*missing-sessions: not found/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("an --output below a file, and a --frozen-run of another suite, are usage errors (exit 2)", async () => {
  const file = join(dir, "a-file.json");
  await Deno.writeTextFile(file, "{}");
  const below = await runCli([
    "engines",
    "run",
    "--reference",
    "--turns",
    "5",
    "--output",
    join(file, "run"),
    "-q",
  ]);
  assert.equal(below.code, 2, below.stderr);
  assert.match(below.stderr, /its parent is not a directory/);

  const sweep = join(dir, "a-sweep");
  const made = await runCli([
    "sweep",
    "run",
    "--reference",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--top-n",
    "1",
    "--output",
    sweep,
    "-q",
  ]);
  assert.equal(made.code, 0, made.stderr);
  const out = join(dir, "wrong-frozen");
  const corpus = join(dir, "collect-for-frozen");
  assert.equal((await runCli(["hotpot", "collect", "--questions", "2", "--output", corpus, "-q"])).code, 0);
  const wrong = await runCli([
    "hotpot",
    "run",
    "--corpus",
    join(corpus, "corpus.json"),
    "--check-only",
    "--frozen-run",
    sweep,
    "--output",
    out,
    "-q",
  ]);
  assert.equal(wrong.code, 2, wrong.stderr);
  assert.match(wrong.stderr, /is a 'sweep' run, not a hotpot run/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});
