/**
 * A small real pipeline for tests: one declared source, `stages` stages that each wait `delayMs` and derive a
 * value from the source (every third one records a provider request), a `sum` stage over all of them, an
 * exported `results.json`, and the sealed manifest. It goes through `openRun` and the {@link Executor}, so it
 * can be started with `output`, killed and continued with `resume`.
 *
 * @module
 */
import { openRun } from "../../src/cli/run_setup.ts";
import type { CallRecord } from "../../src/models/types.ts";
import { z } from "zod";
import { Executor, type NodeResult } from "../../src/pipeline/executor.ts";
import { defineStage } from "../../src/pipeline/stage.ts";
import { sha256Hex } from "../../src/store/hash.ts";

/** The suite name the pipeline's runs carry. */
export const PIPELINE_SUITE = "test-pipeline";

/** Where and how to run the pipeline. */
export interface PipelineOptions {
  /** A new run directory (exclusive). */
  output?: string;
  /** An unfinished run directory to continue. */
  resume?: string;
  /** Number of derive stages (default 20). */
  stages?: number;
  /** Milliseconds each derive stage waits (default 0). */
  delayMs?: number;
  /** Publish results.json as written bytes, not as the sum node's output (a run verify must refuse). */
  detachedResults?: boolean;
}

/** What one pipeline run did. */
export interface PipelineOutcome {
  run: string;
  resumed: boolean;
  counts: Executor["counts"];
  /** Indexes of the derive stages whose function actually ran in this process. */
  ran: number[];
}

const SEED = "compaction-bench test pipeline seed\n";

function fakeRequest(i: number): CallRecord {
  return {
    endpoint: "chat",
    request: { model: "reference", messages: [{ role: "user", content: `stage ${i}` }] },
    response: { choices: [{ message: { role: "assistant", content: `answer ${i}` } }] },
    status: "ok",
    attempts: 1,
    elapsed_ms: 0,
    model: "reference",
    usage: { input_tokens: 10 + i, output_tokens: 2 },
  };
}

/** One derive stage: waits, then derives a value from the source (every third one records a request). */
const DERIVE_STAGE = defineStage({
  name: "derive",
  version: 1,
  doc: "a value derived from the seed",
  params: z.object({ i: z.number().int() }),
  inputs: ["seed"],
  hashOnlyInputs: ["seed"],
  outputs: {
    value: { schema: z.object({ i: z.number(), square: z.number(), digest: z.string() }), doc: "" },
  },
  provider: false,
  async run({ params: { i }, env }: { params: { i: number }; env: { ran: number[]; delayMs: number } }) {
    env.ran.push(i);
    await new Promise((resolve) => setTimeout(resolve, env.delayMs));
    const value = { i, square: i * i, digest: sha256Hex(`${SEED}${i}`) };
    return { outputs: { value }, requests: i % 3 === 0 ? [fakeRequest(i)] : [] };
  },
});

/** The sum over every derive stage's value. */
const SUM_STAGE = defineStage({
  name: "sum",
  version: 1,
  doc: "the sum of the squares",
  params: z.object({ of: z.literal("square") }),
  inputs: ["d*"],
  outputs: {
    result: { schema: z.unknown(), doc: "" },
    "results.json": { schema: z.string(), kind: "text", doc: "the result, published" },
  },
  provider: false,
  run({ inputs, env }: { inputs: Record<string, unknown>; env: { stages: number } }) {
    const values = Array.from(
      { length: env.stages },
      (_, i) => inputs[`d${i}`] as { square: number; digest: string },
    );
    const total = values.reduce((acc, v) => acc + v.square, 0);
    const result = { stages: env.stages, total, digests: values.map((v) => v.digest) };
    return Promise.resolve({ outputs: { result, "results.json": JSON.stringify(result, null, 2) + "\n" } });
  },
});

/** Runs (or resumes) the pipeline to the end and seals the run. */
export async function runPipeline(options: PipelineOptions): Promise<PipelineOutcome> {
  const stages = options.stages ?? 20;
  const delayMs = options.delayMs ?? 0;
  const { run, resumed } = await openRun({
    suite: PIPELINE_SUITE,
    output: options.output,
    resume: options.resume,
    command: ["test-pipeline"],
    options: { stages, delay_ms: delayMs },
    protocol: { stages },
    tokenizer: null,
    sources: { "seed.txt": new TextEncoder().encode(SEED) },
  });
  const executor = new Executor(run);
  const seed = run.header.sources["seed.txt"];
  const ran: number[] = [];
  const derived: NodeResult<{ value: unknown }>[] = [];
  for (let i = 0; i < stages; i++) {
    derived.push(
      await executor.runStage(DERIVE_STAGE, { label: `derive ${i}`, params: { i }, inputs: { seed } }, {
        ran,
        delayMs,
      }),
    );
  }
  const inputs = Object.fromEntries(derived.map((r, i) => [`d${i}`, r.node.outputs.value]));
  const sum = await executor.runStage(SUM_STAGE, {
    label: "sum",
    params: { of: "square" },
    inputs,
    values: Object.fromEntries(derived.map((r, i) => [`d${i}`, r.outputs.value])),
  }, { stages });
  if (options.detachedResults) await run.writeJsonFile("results.json", sum.outputs.result);
  else await run.publish("results.json", sum.node.outputs["results.json"]);
  await run.finish();
  return { run: run.path, resumed, counts: executor.counts, ran };
}
