/**
 * Peak memory of runs fed hostile replies (issue 20): whatever a provider or an outside engine sends, memory
 * stays bounded by the configured limits (`--max-response-bytes`, 8 MiB by default).
 *
 * 1. `hotpot run --live` against the hostile provider of tests/helpers/hostile_provider.ts, whose replies are
 *    chosen by request hash: lone surrogates, integers beyond 2^53, and 100 MB bodies (each summary or answer
 *    that draws one gets a 100 MB reply).
 * 2. `engines run --reference` with an outside engine that writes 200 MB to stdout on every call.
 *
 * For each it polls /proc every 20 ms, summing the resident memory of the CLI process and all its
 * descendants, then runs `verify --rederive`. Target: every peak under 2 GiB, exit 0, verified. Linux only.
 *
 * Usage: `deno run -A bench/hostile_memory.ts [--questions N]` (default 4)
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { outputWithPeak } from "./tree_rss.ts";
import { parseArgs } from "node:util";
import { startHostileProvider } from "../tests/helpers/hostile_provider.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LIMIT = 2 * 1024 ** 3;
const { values } = parseArgs({ args: Deno.args, options: { questions: { type: "string", default: "4" } } });

/** Runs the CLI with `args`, sampling the peak RSS of its process tree. */
async function measured(args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", "main.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { output: result, peak } = await outputWithPeak(child);
  return {
    code: result.code,
    stdout: new TextDecoder().decode(result.stdout),
    stderr: new TextDecoder().decode(result.stderr),
    peak,
    seconds: (performance.now() - started) / 1000,
  };
}

async function verified(run: string): Promise<string> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", "verify", "--rederive", run],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const last = new TextDecoder().decode(result.stdout).trim().split("\n").at(-1);
  return `verify --rederive exit ${result.code}: ${last}`;
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const verdict = (peak: number) => `(target < 2 GiB: ${peak < LIMIT ? "met" : "MISSED"})`;

const dir = await Deno.makeTempDir({ prefix: "bench-hostile-memory-" });
try {
  const collect = await measured([
    "hotpot",
    "collect",
    "--questions",
    values.questions!,
    "--output",
    join(dir, "c"),
    "-q",
  ]);
  if (collect.code !== 0) throw new Error(collect.stderr);

  const provider = await startHostileProvider({ hugeBytes: 100_000_000 });
  const run = join(dir, "hotpot");
  let hotpot;
  try {
    hotpot = await measured([
      "hotpot",
      "run",
      "--corpus",
      join(dir, "c", "corpus.json"),
      "--live",
      "--max-retries",
      "0",
      "--output",
      run,
      "-q",
    ], {
      LLM_API_KEY: "bench-hostile-key-0123456789",
      LLM_BASE_URL: provider.chatBaseUrl,
      DECISION_MODEL_API_KEY: "bench-hostile-key-0123456789",
      DECISION_MODEL_BASE_URL: provider.referenceBaseUrl,
    });
  } finally {
    await provider.close();
  }
  const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  const invalid = (manifest.nodes as { status: string; reason?: string }[]).filter((n) => n.status !== "ok");
  const reasons = new Map<string, number>();
  for (const n of invalid) {
    const key = (n.reason ?? "").replace(/\d{4,}/g, "N").slice(0, 90);
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  console.log(
    `hotpot run --live, ${values.questions} questions, hostile provider: sent ${
      JSON.stringify(provider.sent)
    }; ` +
      `exit ${hotpot.code}, ${hotpot.seconds.toFixed(1)} s, ${invalid.length} invalid node(s)`,
  );
  for (const [reason, count] of reasons) console.log(`  ${count} × ${reason}`);
  console.log(`  peak RSS of the process tree: ${mib(hotpot.peak)} ${verdict(hotpot.peak)}`);
  console.log(`  ${await verified(run)}`);

  // An outside engine that writes 200 MB on every call.
  const flood = join(dir, "flood.py");
  await Deno.writeTextFile(
    flood,
    'import sys\nsys.stdin.read()\nchunk = \'a\' * (1 << 20)\nsys.stdout.write(\'{"messages":[{"role":"user","content":"\')\n' +
      "for _ in range(200): sys.stdout.write(chunk)\nsys.stdout.write('\"}]}')\n",
  );
  const engines = join(dir, "engines");
  const enginesRun = await measured([
    "engines",
    "run",
    "--reference",
    "--engine",
    `flood=exec:python3 ${flood}`,
    "--engine",
    "truncate",
    "--output",
    engines,
    "-q",
  ]);
  console.log(
    `engines run, an engine writing 200 MB per call: exit ${enginesRun.code}, ${
      enginesRun.seconds.toFixed(1)
    } s`,
  );
  if (enginesRun.code !== 0) console.log(enginesRun.stderr.slice(-1500));
  else {
    const nodes = JSON.parse(await Deno.readTextFile(join(engines, "manifest.json"))).nodes as {
      stage: string;
      outputs: Record<string, string>;
    }[];
    for (const node of nodes.filter((n) => n.stage === "engines-engine")) {
      const hash = Object.values(node.outputs)[0];
      const text = await Deno.readTextFile(
        join(engines, "objects", "sha256", hash.slice(0, 2), hash.slice(2)),
      );
      const error = /"error":"([^"]{0,160})/.exec(text)?.[1];
      if (error) console.log(`  failed: ${error}`);
    }
  }
  console.log(`  peak RSS of the process tree: ${mib(enginesRun.peak)} ${verdict(enginesRun.peak)}`);
  if (enginesRun.code === 0) console.log(`  ${await verified(engines)}`);
} finally {
  await new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).output();
  await Deno.remove(dir, { recursive: true });
}
