/**
 * `compaction-bench demo`: the offline demo. Until every suite is wired it runs a small real pipeline through
 * the store: each embedded fixture is hashed by a stage, an index stage combines them, and the run is verified.
 *
 * @module
 */
import { join, relative } from "node:path";
import { z } from "zod";
import { assetPath } from "../assets.ts";
import { Executor } from "../pipeline/executor.ts";
import { Progress } from "../pipeline/progress.ts";
import { sha256Hex } from "../store/hash.ts";
import { formatVerifyReport, verifyRun } from "../store/verify.ts";
import { parseCommand } from "./args.ts";
import { openRun, RUN_OPTION_HELP, RUN_OPTION_SPEC } from "./run_setup.ts";

const HELP = `compaction-bench demo [options]

Runs the offline demo on the embedded fixtures and prints where the run and its report are.

Options:
${RUN_OPTION_HELP}`;

async function listFixtures(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await listFixtures(path));
    else out.push(path);
  }
  return out.sort();
}

/** Runs the demo; returns the exit code. */
export async function demoCommand(argv: string[]): Promise<number> {
  const { options } = parseCommand(
    "demo",
    argv,
    RUN_OPTION_SPEC,
    z.object({
      help: z.boolean().optional(),
      output: z.string().optional(),
      resume: z.string().optional(),
      "frozen-run": z.string().optional(),
      "check-only": z.boolean().optional(),
      quiet: z.boolean().optional(),
    }),
  );
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  const root = assetPath("fixtures");
  const files = await listFixtures(root);
  const sources: Record<string, Uint8Array> = {};
  for (const file of files) sources[relative(root, file)] = await Deno.readFile(file);
  const { run } = await openRun({
    suite: "demo",
    output: options.output,
    resume: options.resume,
    command: ["demo"],
    options: { output: options.output ?? null },
    protocol: { demo: "fixture-index" },
    tokenizer: null,
    sources,
  });
  const progress = new Progress("demo", { quiet: options.quiet });
  const executor = new Executor(run, { progress });
  progress.plan("hash-fixture", files.length);
  const hashed = await Promise.all(files.map(async (file) => {
    const rel = relative(root, file);
    const bytes = sources[rel];
    const content = run.header.sources[rel];
    return executor.execute(
      {
        stage: "hash-fixture",
        version: 1,
        label: `hash-fixture ${rel}`,
        params: { path: rel },
        inputs: { content },
      },
      () =>
        Promise.resolve({ outputs: { entry: { path: rel, bytes: bytes.length, sha256: sha256Hex(bytes) } } }),
    );
  }));
  progress.plan("index", 1);
  const inputs = Object.fromEntries(hashed.map((r, i) => [`f${i}`, r.node.outputs.entry]));
  const index = await executor.execute(
    { stage: "index", version: 1, label: "index", params: {}, inputs },
    () => Promise.resolve({ outputs: { index: hashed.map((r) => r.outputs.entry) } }),
  );
  await run.writeJsonFile("index.json", index.outputs.index);
  progress.end();
  await run.finish();
  const report = await verifyRun(run.path);
  console.log(formatVerifyReport(report));
  console.log(`run: ${run.path}`);
  return report.ok ? 0 : 1;
}
