/**
 * Scheduling overhead of `hotpot run`: with the reference model answering every request after a fixed delay
 * (`--reference-delay-ms`, 200 ms by default), a run should take little more than the ideal
 * `ceil(calls / concurrency) × delay`, where `calls` is every HTTP request the run made to the provider (read
 * back from the run's manifest: the `attempts` of every request record of every node executed in this run)
 * and `concurrency` the requests in flight the run allows.
 *
 * What "concurrency" means here: the clients limit requests per base URL (src/models/endpoint_limit.ts), and
 * with `--reference` the chat and decision clients share the reference server's base URL, so `--concurrency
 * 4` is 4 requests in flight in all, ranking and chat together. The ideal therefore uses 4, not 8.
 *
 * The benchmark collects a small corpus (`--questions`, default 8) with the real CLI, then times `hotpot run`
 * as a subprocess. It reports two walls: the run's own (from the run header's `created` to the sealed
 * manifest's `finished`: everything the run does once its models and run directory are set up) — the figure
 * the target applies to — and the whole process (start-up, module loading and the ~0.75 s tokenizer build
 * included), for reference. Target: run wall ≤ 1.1 × ideal.
 *
 * Usage: `deno run -A bench/overhead.ts [--questions N] [--delay-ms MS] [--concurrency N] [--json] [--keep]`
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { BlobStore } from "../src/store/blob_store.ts";
import { readManifest } from "../src/store/run_dir.ts";

/** The target: run wall time at most this multiple of the ideal. */
export const OVERHEAD_TARGET_RATIO = 1.1;

/** Options of {@link benchOverhead}. */
export interface OverheadOptions {
  /** Questions in the corpus (half bridge, half comparison); default 8. */
  questions: number;
  /** The reference model's fixed delay per request (ms); default 200. */
  delayMs: number;
  /** Requests in flight per endpoint (`--concurrency`); default 4. */
  concurrency: number;
  /** Keep the temp directory (its path is reported). */
  keep: boolean;
}

/** The figures of one benchmark run. */
export interface OverheadResult {
  dir: string;
  questions: number;
  delay_ms: number;
  concurrency: number;
  /** HTTP requests the run made (attempts of every request record of nodes executed in the run). */
  calls: number;
  /** Calls per stage. */
  calls_by_stage: Record<string, number>;
  /** ceil(calls / concurrency) × delay. */
  ideal_ms: number;
  /** From the run header's `created` to the manifest's `finished`. */
  run_wall_ms: number;
  /** The whole `hotpot run` process. */
  process_wall_ms: number;
  /** run_wall_ms / ideal_ms. */
  ratio: number;
  /** process_wall_ms / ideal_ms, for reference. */
  process_ratio: number;
  target: number;
  within_target: boolean;
}

const RecordAttemptsSchema = z.object({ attempts: z.number().int().positive() }).loose();

async function cli(args: string[]): Promise<void> {
  const main = new URL("../main.ts", import.meta.url);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--unstable-worker-options", main.href, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr);
    throw new Error(`compaction-bench ${args.join(" ")} exited with ${output.code}:\n${stderr}`);
  }
}

/** Runs the benchmark once. */
export async function benchOverhead(options: Partial<OverheadOptions> = {}): Promise<OverheadResult> {
  const questions = options.questions ?? 8;
  const delayMs = options.delayMs ?? 200;
  const concurrency = options.concurrency ?? 4;
  const dir = await Deno.makeTempDir({ prefix: "hotpot_overhead_bench_" });
  try {
    const collectDir = join(dir, "collect");
    const runDir = join(dir, "run");
    await cli(["hotpot", "collect", "--questions", String(questions), "--output", collectDir, "--quiet"]);
    const started = performance.now();
    await cli([
      "hotpot",
      "run",
      "--corpus",
      join(collectDir, "corpus.json"),
      "--reference",
      "--reference-delay-ms",
      String(delayMs),
      "--concurrency",
      String(concurrency),
      "--output",
      runDir,
      "--quiet",
    ]);
    const processWall = performance.now() - started;
    const manifest = await readManifest(runDir);
    const store = new BlobStore(runDir);
    let calls = 0;
    const byStage: Record<string, number> = {};
    for (const node of manifest.nodes) {
      if (node.reused_from !== undefined) continue;
      for (const hash of node.requests) {
        const { attempts } = RecordAttemptsSchema.parse(await store.getJson(hash));
        calls += attempts;
        byStage[node.stage] = (byStage[node.stage] ?? 0) + attempts;
      }
    }
    const idealMs = Math.ceil(calls / concurrency) * delayMs;
    const runWall = Date.parse(manifest.finished) - Date.parse(manifest.created);
    const ratio = runWall / idealMs;
    return {
      dir,
      questions,
      delay_ms: delayMs,
      concurrency,
      calls,
      calls_by_stage: byStage,
      ideal_ms: idealMs,
      run_wall_ms: runWall,
      process_wall_ms: Math.round(processWall),
      ratio,
      process_ratio: processWall / idealMs,
      target: OVERHEAD_TARGET_RATIO,
      within_target: ratio <= OVERHEAD_TARGET_RATIO,
    };
  } finally {
    if (!options.keep) await Deno.remove(dir, { recursive: true });
  }
}

const ArgsSchema = z.object({
  questions: z.coerce.number().int().min(2).default(8),
  "delay-ms": z.coerce.number().int().min(1).default(200),
  concurrency: z.coerce.number().int().min(1).default(4),
  json: z.boolean().default(false),
  keep: z.boolean().default(false),
});

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      questions: { type: "string" },
      "delay-ms": { type: "string" },
      concurrency: { type: "string" },
      json: { type: "boolean" },
      keep: { type: "boolean" },
    },
  });
  const args = ArgsSchema.parse(values);
  const r = await benchOverhead({
    questions: args.questions,
    delayMs: args["delay-ms"],
    concurrency: args.concurrency,
    keep: args.keep,
  });
  if (args.json) console.log(JSON.stringify(r));
  else {
    const stages = Object.entries(r.calls_by_stage).map(([s, n]) => `${s} ${n}`).join(", ");
    console.log(
      `overhead bench: ${r.questions} questions, ${r.calls} calls (${stages}), concurrency ${r.concurrency}, ` +
        `delay ${r.delay_ms} ms\n` +
        `  ideal ceil(${r.calls}/${r.concurrency}) × ${r.delay_ms} ms = ${r.ideal_ms} ms\n` +
        `  run wall ${r.run_wall_ms} ms → ratio ${r.ratio.toFixed(3)} (target ≤ ${r.target}) ` +
        `${r.within_target ? "ok" : "OVER TARGET"}\n` +
        `  process wall ${r.process_wall_ms} ms (start-up and tokenizer build included) → ratio ` +
        `${r.process_ratio.toFixed(3)}` + (args.keep ? `\n  kept: ${r.dir}` : ""),
    );
  }
  if (!r.within_target) Deno.exit(1);
}
