/**
 * The demo-sized hotpot benchmark: `hotpot collect` on the embedded demo data (30 questions by default) and
 * `hotpot run --reference` over it with the protocol defaults (4 methods, 2 compressions × 2 answers), each as
 * a real CLI subprocess, timed wall to wall (start-up and the tokenizer build included). Target: collect + run
 * ≤ 15 s on the project's 2-core machine.
 *
 * Usage: `deno run -A bench/hotpot_demo.ts [--questions N] [--json] [--keep]`
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";

/** The target from issue 4 (collect + run, ms). */
export const HOTPOT_DEMO_TARGET_MS = 15_000;

/** The figures of one benchmark run. */
export interface HotpotDemoResult {
  dir: string;
  questions: number;
  collect_ms: number;
  run_ms: number;
  total_ms: number;
  /** Answer rows in results.json (questions × methods × compressions × answers). */
  answers: number;
  target_ms: number;
  within_target: boolean;
}

async function timedCli(args: string[]): Promise<number> {
  const main = new URL("../main.ts", import.meta.url);
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--unstable-worker-options", main.href, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - started;
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr);
    throw new Error(`compaction-bench ${args.join(" ")} exited with ${output.code}:\n${stderr}`);
  }
  return elapsed;
}

/** Runs the benchmark once. */
export async function benchHotpotDemo(
  options: { questions?: number; keep?: boolean } = {},
): Promise<HotpotDemoResult> {
  const questions = options.questions ?? 30;
  const dir = await Deno.makeTempDir({ prefix: "hotpot_demo_bench_" });
  try {
    const collectDir = join(dir, "collect");
    const runDir = join(dir, "run");
    const collectMs = await timedCli([
      "hotpot",
      "collect",
      "--questions",
      String(questions),
      "--output",
      collectDir,
      "--quiet",
    ]);
    const runMs = await timedCli([
      "hotpot",
      "run",
      "--corpus",
      join(collectDir, "corpus.json"),
      "--reference",
      "--output",
      runDir,
      "--quiet",
    ]);
    const rows = z.array(z.unknown()).parse(
      JSON.parse(await Deno.readTextFile(join(runDir, "results.json"))),
    );
    const total = collectMs + runMs;
    return {
      dir,
      questions,
      collect_ms: Math.round(collectMs),
      run_ms: Math.round(runMs),
      total_ms: Math.round(total),
      answers: rows.length,
      target_ms: HOTPOT_DEMO_TARGET_MS,
      within_target: total <= HOTPOT_DEMO_TARGET_MS,
    };
  } finally {
    if (!options.keep) await Deno.remove(dir, { recursive: true });
  }
}

const ArgsSchema = z.object({
  questions: z.coerce.number().int().min(2).default(30),
  json: z.boolean().default(false),
  keep: z.boolean().default(false),
});

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { questions: { type: "string" }, json: { type: "boolean" }, keep: { type: "boolean" } },
  });
  const args = ArgsSchema.parse(values);
  const r = await benchHotpotDemo({ questions: args.questions, keep: args.keep });
  if (args.json) console.log(JSON.stringify(r));
  else {
    console.log(
      `hotpot demo bench: ${r.questions} questions, ${r.answers} answers: collect ${r.collect_ms} ms + run ` +
        `${r.run_ms} ms = ${r.total_ms} ms (target ≤ ${r.target_ms}) ${
          r.within_target ? "ok" : "OVER TARGET"
        }` +
        (args.keep ? `\n  kept: ${r.dir}` : ""),
    );
  }
  if (!r.within_target) Deno.exit(1);
}
