/**
 * End-to-end tests of `engines run` and `engines generate` through the real CLI, the run store and verify.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { testCounter } from "./models_support.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await listFiles(path));
    else out.push(path);
  }
  return out;
}

Deno.test("engines run writes a verifiable run with results.json, REPORT.md and a row per engine", async () => {
  const dir = await Deno.makeTempDir();
  const out = join(dir, "run");
  const run = await runCli([
    "engines",
    "run",
    "--reference",
    "--output",
    out,
    "--turns",
    "30",
    "--needles",
    "3",
    "--repeats",
    "1",
    "--engine",
    "full",
    "--engine",
    "truncate",
    "--engine",
    "jev",
    "--quiet",
  ]);
  assert.equal(run.code, 0, run.stderr);
  for (const engine of ["full", "truncate", "jev"]) {
    assert.match(run.stdout, new RegExp(`^${engine}\\s+\\d+ \\(25%\\)\\s+ok`, "m"));
  }
  const results = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
  assert.equal(results.engines.length, 3);
  assert.equal(results.engines[0].needles.recall, 1);
  const report = await Deno.readTextFile(join(out, "REPORT.md"));
  assert.match(report, /reference/i);
  // One budget: recall and latency with their 95% CIs (default resamples, the seed named).
  assert.match(
    report,
    /### 95% CI\n\n95% CI: percentile bootstrap \(10,000 resamples, seed compaction-bench\/stats@1\)/,
  );
  assert.match(
    report,
    /^\| full \| 25% \| 100\.0 \[100\.0, 100\.0\] \| 100\.0 \[100\.0, 100\.0\] \| n\/a \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|$/m,
  );
  assert.match(
    report,
    /^\| truncate \| 25% \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| n\/a \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|$/m,
  );
  assert.equal(JSON.parse(await Deno.readTextFile(join(out, "stats.json"))).resamples, 10_000);
  const verify = await runCli(["verify", "--rederive", out]);
  assert.equal(verify.code, 0, verify.stdout);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("engines run refuses a run without --reference or --live and writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  const out = join(dir, "run");
  const run = await runCli(["engines", "run", "--output", out, "--turns", "5"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--reference.*--live/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("engines generate prints the same transcript hash for the same parameters and another for others", async () => {
  const a = await runCli(["engines", "generate", "--turns", "40", "--needles", "4"]);
  const b = await runCli(["engines", "generate", "--turns", "40", "--needles", "4"]);
  const c = await runCli(["engines", "generate", "--turns", "41", "--needles", "4"]);
  assert.equal(a.code, 0, a.stderr);
  const hash = (s: string) => s.split(/\s+/)[0];
  assert.match(hash(a.stdout), /^[0-9a-f]{64}$/);
  assert.equal(hash(a.stdout), hash(b.stdout));
  assert.notEqual(hash(a.stdout), hash(c.stdout));
});

Deno.test("a live run with LLM_API_KEY=sk-test-SECRET leaves no trace of SECRET in its run directory", async () => {
  const counter = await testCounter();
  const server = await startReferenceServer({ counter });
  const dir = await Deno.makeTempDir();
  const out = join(dir, "run");
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "main.ts",
        "engines",
        "run",
        "--live",
        "--output",
        out,
        "--turns",
        "20",
        "--needles",
        "2",
        "--repeats",
        "1",
        "--engine",
        "summary",
        "--engine",
        "jev",
        "--quiet",
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
      env: {
        NO_COLOR: "1",
        LLM_API_KEY: "sk-test-SECRET",
        LLM_BASE_URL: server.baseUrl,
        DECISION_MODEL_API_KEY: "dm-test-SECRET",
        DECISION_MODEL_BASE_URL: server.baseUrl,
      },
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, stderr);
    assert.ok(!stdout.includes("SECRET") && !stderr.includes("SECRET"));
    assert.ok(server.stats().answered.chat > 0, "the chat model was really called");
    const files = await listFiles(out);
    assert.ok(files.length > 10);
    for (const file of files) {
      // The secrets' values (the run keeps the program's source, whose identifiers may say SECRET).
      const text = new TextDecoder().decode(await Deno.readFile(file));
      assert.ok(!/(sk|dm)-test-SECRET/.test(text), `${file} contains the secret`);
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engines run with an unknown engine or a malformed transcript exits 2 and writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "run");
    const bogus = await runCli([
      "engines",
      "run",
      "--reference",
      "--engine",
      "bogus",
      "--output",
      out,
      "--quiet",
    ]);
    assert.equal(bogus.code, 2);
    assert.match(bogus.stderr, /unknown engine 'bogus'/);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
    const file = join(dir, "bad.json");
    await Deno.writeTextFile(file, JSON.stringify([{ role: "robot", content: "hi" }]));
    const bad = await runCli([
      "engines",
      "run",
      "--reference",
      "--transcript",
      file,
      "--output",
      out,
      "--quiet",
    ]);
    assert.equal(bad.code, 2);
    assert.ok(bad.stderr.includes(file), bad.stderr);
    assert.match(bad.stderr, /\[0\]\.role/);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
