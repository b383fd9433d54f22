/**
 * End-to-end tests of `sweep run` through the real CLI: over-budget contexts, frozen reuse, check-only, and
 * the refusals (unknown trajectory, --compressions mismatch).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

interface ManifestNode {
  stage: string;
  label: string;
  status: string;
  reason?: string;
  usage: { calls: number };
  reused_from?: { run: string };
}

async function manifestNodes(run: string): Promise<ManifestNode[]> {
  return JSON.parse(await Deno.readTextFile(join(run, "manifest.json"))).nodes;
}

const tmp = await Deno.makeTempDir({ prefix: "sweep-run-test-" });
const first = join(tmp, "first");
const SMALL = ["--compressions", "2", "--answers", "1", "--quiet"];
const firstRun = await runCli(["sweep", "run", "--reference", "--output", first, ...SMALL]);

Deno.test("a sweep run scores every context kind, records over-budget contexts as invalid and verifies", async () => {
  assert.equal(firstRun.code, 0, firstRun.stderr);
  const aggregate = JSON.parse(await Deno.readTextFile(join(first, "aggregate.json")));
  assert.deepEqual(
    aggregate.map((a: { kind: string }) => a.kind),
    ["full", "S", "S+Top1", "S+Top2", "S+Top3", "S+Top4", "S+Top5"],
  );
  for (const a of aggregate) assert.equal(a.planned, 2);
  const nodes = await manifestNodes(first);
  const overBudget = nodes.filter((n) => n.stage === "sweep-context" && n.status === "invalid");
  assert.ok(overBudget.length > 0, "the default fixture has over-budget S + Top N contexts");
  for (const n of overBudget) {
    assert.match(n.reason ?? "", /over budget: \d+ tokens > 3736 \(recorded, never shrunk\)/);
  }
  // An over-budget context is never sent: its answer node made no call and scores zero.
  const results = JSON.parse(await Deno.readTextFile(join(first, "results.json")));
  const invalidRows = results.filter((r: { kind: string; within_cap: boolean }) =>
    r.kind !== "full" && r.within_cap === false
  );
  assert.ok(invalidRows.length > 0);
  // One definition of "over budget": the rows of over-budget contexts say so, and no other row does.
  const overKinds = new Set(overBudget.map((n) => /kind=(\S+)/.exec(n.label)![1]));
  const flagged = results.filter((r: { kind: string; within_cap: boolean }) =>
    r.kind !== "full" && r.within_cap === false
  );
  assert.deepEqual(new Set(flagged.map((r: { kind: string }) => r.kind)), overKinds);
  for (const r of invalidRows) {
    assert.equal(r.status, "invalid");
    assert.equal(r.fact_score, 0);
    assert.equal(r.input_tokens, null);
  }
  const verify = await runCli(["verify", first]);
  assert.equal(verify.code, 0, verify.stdout);
});

Deno.test("a --frozen-run sweep makes no compression calls: every summary and ranking is reused", async () => {
  const second = join(tmp, "second");
  const run = await runCli([
    "sweep",
    "run",
    "--reference",
    "--frozen-run",
    first,
    "--output",
    second,
    ...SMALL,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const nodes = await manifestNodes(second);
  const compression = nodes.filter((n) => n.stage === "sweep-summary" || n.stage === "sweep-rank");
  assert.equal(compression.length, 4);
  for (const n of compression) assert.equal(n.reused_from?.run, first, `${n.label} was not reused`);
  const answers = nodes.filter((n) => n.stage === "sweep-answer");
  assert.ok(answers.every((n) => n.reused_from === undefined), "answers are always made afresh");
  assert.ok(answers.some((n) => n.usage.calls === 1));
  assert.match(run.stdout, /compression calls: 0; reused nodes: 4/);
  assert.equal((await runCli(["verify", second])).code, 0);
});

Deno.test("--check-only --frozen-run rebuilds every answer input offline and passes, sending nothing", async () => {
  const check = join(tmp, "check");
  const run = await runCli([
    "sweep",
    "run",
    "--check-only",
    "--frozen-run",
    first,
    "--output",
    check,
    ...SMALL,
  ]);
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.match(run.stdout, /compared 14 answer input\(s\)/);
  assert.match(run.stdout, /ok: every answer input equals the frozen run's/);
  const nodes = await manifestNodes(check);
  const made = nodes.filter((n) => n.reused_from === undefined);
  assert.ok(made.length > 0 && made.every((n) => n.usage.calls === 0), "nothing was sent");
  // Nothing was answered, so nothing is scored or reported: only the comparison is published.
  assert.ok(JSON.parse(await Deno.readTextFile(join(check, "check.json"))).compared === 14);
  for (const file of ["results.json", "aggregate.json", "REPORT.md", "report.html"]) {
    await assert.rejects(Deno.stat(join(check, file)), Deno.errors.NotFound, file);
  }
});

Deno.test("--check-only reports answer inputs that differ from the frozen run (exit 1)", async () => {
  const check = join(tmp, "check-differ");
  const run = await runCli([
    "sweep",
    "run",
    "--check-only",
    "--frozen-run",
    first,
    "--output",
    check,
    "--reserve",
    "32",
    ...SMALL,
  ]);
  assert.equal(run.code, 1, run.stdout);
  // The reserve changes the summary's key (no frozen summary to reuse) but not the full history.
  assert.match(run.stdout, /differs: answer kind=S gen=0 ans=0/);
  assert.doesNotMatch(run.stdout, /differs: answer kind=full/);
});

Deno.test("a --compressions different from the frozen run's generations is refused before anything is written", async () => {
  const out = join(tmp, "mismatch");
  const run = await runCli([
    "sweep",
    "run",
    "--reference",
    "--frozen-run",
    first,
    "--output",
    out,
    "--compressions",
    "3",
    "--quiet",
  ]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--compressions 3 differs from the 2 frozen summary generation\(s\)/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("an unknown trajectory file is refused with its name and hash", async () => {
  const file = join(tmp, "edited.json");
  const original = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/sweep/payments/trajectory.json", import.meta.url)),
  );
  original[1].content += " Please hurry.";
  await Deno.writeTextFile(file, JSON.stringify(original));
  const out = join(tmp, "unknown");
  const run = await runCli(["sweep", "run", "--reference", "--trajectory", file, "--output", out, "--quiet"]);
  assert.equal(run.code, 2);
  assert.ok(run.stderr.includes(file), run.stderr);
  assert.match(run.stderr, /[0-9a-f]{64}/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("a --frozen-run sweep with another --summary-allowance is refused, naming it, and writes nothing", async () => {
  const out = join(tmp, "allowance");
  const run = await runCli([
    "sweep",
    "run",
    "--reference",
    "--frozen-run",
    first,
    "--output",
    out,
    "--summary-allowance",
    "3000",
    ...SMALL,
  ]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /--summary-allowance 3000 differs from the frozen run's 3200/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});
