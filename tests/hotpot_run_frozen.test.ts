/**
 * `hotpot run --frozen-run` and `--check-only` through the real CLI: a second run reuses every ranking and
 * summary of the first and answers afresh; check-only rebuilds every answer input offline and sends nothing;
 * a frozen run made under other options is found by label and its differing inputs are listed (exit 1).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { readManifest } from "../src/store/run_dir.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_run_frozen_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

const corpusPath = join(dir, "collect", "corpus.json");
const first = join(dir, "first");
const setup = await runCli(["hotpot", "collect", "--questions", "4", "--output", join(dir, "collect"), "-q"]);
assert.equal(setup.code, 0, setup.stderr);
const firstRun = await runCli([
  "hotpot",
  "run",
  "--corpus",
  corpusPath,
  "--reference",
  "--output",
  first,
  "-q",
]);
assert.equal(firstRun.code, 0, firstRun.stderr);

const AggregateSchema = z.array(
  z.object({
    method: z.string(),
    valid: z.number(),
    planned: z.number(),
    compression_usage: z.object({ calls: z.number(), input_tokens: z.number(), output_tokens: z.number() }),
  }).loose(),
);

const CheckSchema = z.object({
  compared: z.number(),
  differing: z.array(z.string()),
  missing: z.array(z.string()),
});

Deno.test("a --frozen-run reuses every ranking and summary, makes no compression call and answers afresh", async () => {
  const second = join(dir, "second");
  const result = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpusPath,
    "--reference",
    "--frozen-run",
    first,
    "--output",
    second,
    "-q",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const frozen = await readManifest(first);
  const manifest = await readManifest(second);
  for (const stage of ["hotpot-rank", "hotpot-summary"]) {
    const expected = frozen.nodes.filter((n) => n.stage === stage).map((n) => n.key).sort();
    const nodes = manifest.nodes.filter((n) => n.stage === stage);
    assert.ok(expected.length > 0, stage);
    assert.deepEqual(nodes.map((n) => n.key).sort(), expected, stage);
    for (const node of nodes) {
      assert.equal(node.reused_from?.run, first, node.label);
      assert.equal(node.reused_from?.key, node.key, node.label);
    }
  }
  const answers = manifest.nodes.filter((n) => n.stage === "hotpot-answer");
  assert.equal(answers.length, 4 * 4 * 2 * 2);
  for (const node of answers) {
    assert.equal(node.reused_from, undefined, node.label);
    assert.equal(node.usage.calls, 1, node.label);
    assert.equal(node.requests.length, 1, node.label);
  }
  const aggregate = AggregateSchema.parse(
    JSON.parse(await Deno.readTextFile(join(second, "aggregate.json"))),
  );
  for (const a of aggregate) {
    assert.deepEqual(a.compression_usage, { calls: 0, input_tokens: 0, output_tokens: 0 }, a.method);
    assert.equal(a.valid, a.planned, a.method);
  }
  // The same frozen artifacts and a deterministic model give the same results.
  assert.equal(
    await Deno.readTextFile(join(second, "results.json")),
    await Deno.readTextFile(join(first, "results.json")),
  );
  const verified = await runCli(["verify", second]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

Deno.test("--check-only --frozen-run exits 0 and sends nothing when every answer input matches", async () => {
  const out = join(dir, "check");
  // No --reference: no model server is started; a request would throw.
  const result = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpusPath,
    "--check-only",
    "--frozen-run",
    first,
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /ok: every answer input equals the frozen run's/);
  const check = CheckSchema.parse(JSON.parse(await Deno.readTextFile(join(out, "check.json"))));
  assert.deepEqual(check, { compared: 4 * 4 * 2 * 2, differing: [], missing: [] });
  const manifest = await readManifest(out);
  const reused = manifest.nodes.filter((n) => n.reused_from !== undefined);
  assert.deepEqual([...new Set(reused.map((n) => n.stage))].sort(), [
    "hotpot-corpus-head",
    "hotpot-question",
    "hotpot-rank",
    "hotpot-summary",
  ]);
  // Nodes made in this run sent nothing (reused nodes carry the frozen run's records).
  for (const node of manifest.nodes.filter((n) => n.reused_from === undefined)) {
    assert.deepEqual(node.requests, [], node.label);
    assert.equal(node.usage.calls, 0, node.label);
  }
  const verified = await runCli(["verify", out]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

Deno.test("--check-only against a frozen run made with a much larger --reserve lists the differing inputs (exit 1)", async () => {
  const other = join(dir, "reserve-1500");
  const made = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpusPath,
    "--reference",
    "--reserve",
    "1500",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--output",
    other,
    "-q",
  ]);
  assert.equal(made.code, 0, made.stderr);
  const out = join(dir, "check-reserve");
  const result = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpusPath,
    "--check-only",
    "--frozen-run",
    other,
    "--compressions",
    "1",
    "--answers",
    "1",
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 1, result.stdout + result.stderr);
  const check = CheckSchema.parse(JSON.parse(await Deno.readTextFile(join(out, "check.json"))));
  // Every label is found in the frozen run; the compacted inputs differ, the uncompressed one does not.
  assert.deepEqual(check.missing, []);
  assert.equal(check.compared, 4 * 4);
  const methodsDiffering = new Set(check.differing.map((label) => /method=(\S+)/.exec(label)![1]));
  assert.deepEqual([...methodsDiffering].sort(), ["jev", "jev+summary", "summary"]);
  assert.equal(check.differing.length, 4 * 3);
  for (const label of check.differing) assert.ok(result.stdout.includes(`differs: ${label}`), label);
});

Deno.test("a --frozen-run with an option that changes a ranking or summary key is refused, naming it, and writes nothing", async () => {
  const cases: [string[], RegExp][] = [
    [["--input-cap", "3000"], /--input-cap 3000 differs from the frozen run's 3600/],
    [["--compressions", "1"], /--compressions 1 differs from the frozen run's 2/],
    [["--reserve", "32"], /--reserve 32 differs from the frozen run's 64/],
  ];
  for (const [option, message] of cases) {
    const out = join(dir, `refused-${option[0].slice(2)}`);
    const result = await runCli([
      "hotpot",
      "run",
      "--corpus",
      corpusPath,
      "--reference",
      "--frozen-run",
      first,
      ...option,
      "--output",
      out,
      "-q",
    ]);
    assert.equal(result.code, 2, `${option.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.match(result.stderr, /no new compression call/);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound, option.join(" "));
  }
});

Deno.test("a --frozen-run of a run without the summary method refuses --methods summary", async () => {
  const partial = join(dir, "partial");
  const made = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpusPath,
    "--reference",
    "--methods",
    "full,jev",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--output",
    partial,
    "-q",
  ]);
  assert.equal(made.code, 0, made.stderr);
  const out = join(dir, "partial-frozen");
  const result = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpusPath,
    "--reference",
    "--frozen-run",
    partial,
    "--methods",
    "jev,summary",
    "--compressions",
    "1",
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--methods jev,summary differs from the frozen run's full,jev/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("a compression node missing from the frozen run is refused while running and the new run directory is removed", async () => {
  // A copy of the frozen run whose manifest lost one summary node (its options all match).
  const edited = join(dir, "edited");
  await new Deno.Command("cp", { args: ["-a", first, edited] }).output();
  const manifest = JSON.parse(await Deno.readTextFile(join(edited, "manifest.json")));
  const dropped = manifest.nodes.find((n: { stage: string }) => n.stage === "hotpot-summary");
  manifest.nodes = manifest.nodes.filter((n: { key: string }) => n.key !== dropped.key);
  await Deno.remove(join(edited, "manifest.json"));
  await Deno.writeTextFile(join(edited, "manifest.json"), JSON.stringify(manifest, null, 2));
  const out = join(dir, "from-edited");
  const result = await runCli([
    "hotpot",
    "run",
    "--corpus",
    corpusPath,
    "--reference",
    "--frozen-run",
    edited,
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.ok(result.stderr.includes(`${dropped.label} is not in the frozen run`), result.stderr);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});
