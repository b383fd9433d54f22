/**
 * `engines run` options end to end through the real CLI: budget sweeps, probe files, named engines,
 * skipped competitors, `--engine-env`, and the refusals of bad values (exit 2, nothing written).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./helpers/spawn.ts";

const FIXTURES = new URL("./engines_fixtures/", import.meta.url).pathname;

/** Runs the CLI with a small, known environment (no competitor variables, no provider keys). */
async function cli(args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", "main.ts", ...args],
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/tmp", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}

Deno.test("engines run --budget 10%,50% measures every engine at each budget; names and skips show in every table", async () => {
  const dir = await Deno.makeTempDir();
  const out = join(dir, "run");
  try {
    const run = await cli([
      "engines",
      "run",
      "--reference",
      "-q",
      "--turns",
      "30",
      "--needles",
      "3",
      "--repeats",
      "1",
      "--budget",
      "10%,50%",
      "--bootstrap",
      "500",
      "--engine",
      "truncate",
      "--engine",
      "everything=full",
      "--engine",
      "hermes-like",
      "--engine",
      "hermes",
      "--output",
      out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^hermes: skipped: Hermes Agent not found/m);
    const results = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
    assert.equal(results.budgets.length, 2);
    assert.deepEqual(results.budgets.map((b: { budget: string }) => b.budget), ["10%", "50%"]);
    const tokens = results.transcript.tokens;
    assert.deepEqual(
      results.budgets.map((b: { budget_tokens: number }) => b.budget_tokens),
      [Math.floor(tokens * 0.1), Math.floor(tokens * 0.5)],
    );
    assert.equal(results.engines.length, 8);
    const names = results.engines.map((r: { engine: string; budget: string; status: string }) =>
      `${r.engine}@${r.budget}:${r.status}`
    );
    assert.deepEqual(names, [
      "truncate@10%:ok",
      "everything@10%:ok",
      "hermes-like@10%:ok",
      "hermes@10%:skipped",
      "truncate@50%:ok",
      "everything@50%:ok",
      "hermes-like@50%:ok",
      "hermes@50%:skipped",
    ]);
    // Needle depths are recorded, all in the early half by default.
    assert.equal(results.transcript.needles.length, 3);
    for (const n of results.transcript.needles) assert.ok(n.depth < 0.5, `needle at ${n.depth}`);
    const report = await Deno.readTextFile(join(out, "REPORT.md"));
    assert.match(report, /### Recall at retained tokens/);
    assert.match(report, /\| hermes-like \(reimplementation\) \|/);
    assert.match(report, /\| everything \|/);
    assert.match(report, /skipped: Hermes Agent not found/);
    assert.equal(/\| hermes-like \| /.test(report), false, "hermes-like is never shown unlabelled");
    // 95% CIs over needles and questions (recall) and warm repeats (latency), one row per engine and budget.
    const ci = report.slice(report.indexOf("### 95% CI"));
    assert.match(ci, /500 resamples, seed compaction-bench\/stats@1/);
    for (const budget of ["10%", "50%"]) {
      assert.match(
        ci,
        new RegExp(
          `^\\| truncate \\| ${budget} \\| 0\\.0 \\[0\\.0, 0\\.0\\] \\| [0-9.]+ \\[[0-9.]+, [0-9.]+\\] \\| n/a \\| [0-9.]+ \\[[0-9.]+, [0-9.]+\\] \\|$`,
          "m",
        ),
      );
      assert.match(
        ci,
        new RegExp(`^\\| everything \\| ${budget} \\| 100\\.0 \\[100\\.0, 100\\.0\\] \\|`, "m"),
      );
      assert.match(ci, new RegExp(`^\\| hermes \\| ${budget} \\| n/a \\| n/a \\| n/a \\| n/a \\|$`, "m"));
    }
    const stats = JSON.parse(await Deno.readTextFile(join(out, "stats.json")));
    assert.equal(stats.resamples, 500);
    assert.equal(stats.seed, "compaction-bench/stats@1");
    assert.equal(stats.engines.length, 8);
    const html = await Deno.readTextFile(join(out, "report.html"));
    assert.match(html, /Needle recall against tokens kept/);
    assert.match(html, /<polyline [^>]*points="/);
    assert.match(html, /<h3>95% CI<\/h3>/);
    assert.match(html, /<title>everything, budget 50%: 95% CI \[100\.0, 100\.0\]<\/title>/);
    // Every published number re-derives from the run's stored inputs, byte for byte.
    const verify = await cli(["verify", "--rederive", out]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /every output is byte-identical/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engines run --probes on a Hermes session gives every engine row a probe recall, per type and overall", async () => {
  const dir = await Deno.makeTempDir();
  const out = join(dir, "run");
  try {
    const run = await cli([
      "engines",
      "run",
      "--reference",
      "-q",
      "--transcript",
      join(FIXTURES, "hermes_session_small.json"),
      "--probes",
      join(FIXTURES, "hermes_session_small.probes.json"),
      "--repeats",
      "0",
      "--budget",
      "60%",
      "--output",
      out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
    assert.equal(results.transcript.probes, 4);
    assert.equal(results.engines.length, 6);
    for (const r of results.engines) {
      assert.equal(r.status, "ok", `${r.engine}: ${r.reason}`);
      assert.equal(r.probes.total, 4, r.engine);
      assert.equal(r.probes.facts_total, 5, r.engine);
      assert.equal(r.probes.recall, r.probes.facts_found / 5, r.engine);
      assert.deepEqual(Object.keys(r.probes.by_type).sort(), ["artifact", "continuation", "recall"]);
    }
    // The full window holds every fact; the reference model answers from it.
    assert.ok(results.engines[0].probes.recall > 0, "full: some expected facts are found");
    const report = await Deno.readTextFile(join(out, "REPORT.md"));
    assert.match(report, /### Probe recall per type/);
    assert.match(report, /LLM-free/);
    assert.equal((await cli(["verify", out])).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engines run refuses bad budgets, unknown --engine-env names and malformed probe files, writing nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const badProbes = join(dir, "probes.json");
    await Deno.writeTextFile(badProbes, JSON.stringify({ probes: [{ id: "a", type: "t", question: "q" }] }));
    const cases: [string[], RegExp][] = [
      [["--budget", "0%"], /--budget.*share must be in/],
      [["--budget", "10%,10%"], /--budget.*given twice/],
      [["--budget", "ten"], /--budget.*neither a share/],
      [
        ["--engine-env", "CB_SURELY_UNSET_VARIABLE"],
        /--engine-env CB_SURELY_UNSET_VARIABLE: the variable is not set/,
      ],
      [["--probes", badProbes], /probes\.json: probes\[0\]\.expected_facts/],
      [["--engine", "a=truncate", "--engine", "a=full"], /--engine a is given twice/],
      [["--engine", "hermes", "--hermes", join(dir, "missing")], /--hermes .*missing: not a directory/],
    ];
    for (const [extra, message] of cases) {
      const out = join(dir, "run");
      const run = await cli([
        "engines",
        "run",
        "--reference",
        "-q",
        "--turns",
        "5",
        "--output",
        out,
        ...extra,
      ]);
      assert.equal(run.code, 2, `${extra.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.split("\n").filter(Boolean).length, 1, run.stderr);
      await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engines run --help lists what it supports and neither --resume nor --check-only", async () => {
  const help = await cli(["engines", "run", "--help"]);
  assert.equal(help.code, 0);
  assert.equal(help.stdout.includes("--resume"), false);
  assert.equal(help.stdout.includes("--check-only"), false);
  for (
    const option of ["--budget LIST", "--probes FILE", "--engine-env NAME", "--hermes DIR", "[NAME=]SPEC"]
  ) {
    assert.ok(help.stdout.includes(option), option);
  }
});
