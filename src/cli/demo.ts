/**
 * `compaction-bench demo`: every suite offline on the embedded fixtures, then every run verified.
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { formatVerifyReport, verifyRun } from "../store/verify.ts";
import { parseOptions, printHelp } from "./args.ts";
import { checkNewOutputPath, inputError } from "../fs_input.ts";
import type { Command } from "./command.ts";
import { defaultOutputPath } from "./run_setup.ts";
import { CLI } from "../core/program_name.ts";

const HELP = `${CLI} demo [--output DIR] [--quiet]

Runs the offline demo: hotpot (collect + run), sweep (and a second sweep reusing the first one's frozen
summaries and rankings), and engines, all with the built-in deterministic reference model on the embedded
fixtures. Every run directory is verified. Nothing leaves this machine.

Options:
  -o, --output DIR     new directory for the demo's runs (default: runs/demo-<time>)
  -q, --quiet          no progress on stderr`;

/** The second lane's reply (demo_lane.ts): its lines, exit code, runs verified, the error that stopped it. */
const LaneReplySchema = z.object({
  lines: z.array(z.string()),
  code: z.number().int(),
  verified: z.array(z.object({ run: z.string(), ok: z.boolean(), text: z.string() })),
  error: z.object({ usage: z.boolean(), message: z.string() }).optional(),
});
/** The second lane's reply (demo_lane.ts imports this type only: the worker never loads this module). */
export type LaneReply = z.infer<typeof LaneReplySchema>;

async function hotpotLane(
  hotpot: Command,
  root: string,
  quiet: string[],
  step: (title: string) => void,
): Promise<number> {
  step("hotpot collect (scripted trajectories of the demo questions)");
  const corpusRun = join(root, "hotpot-corpus");
  const code = await hotpot.run(["collect", "--output", corpusRun, ...quiet]);
  if (code !== 0) return code;

  step("hotpot run (full, jev, summary, jev+summary under a 3,600-token ceiling)");
  const corpus = join(corpusRun, "corpus.json");
  return await hotpot.run([
    "run",
    "--corpus",
    corpus,
    "--reference",
    "--output",
    join(root, "hotpot"),
    ...quiet,
  ]);
}

function startLane(root: string): { reply: Promise<LaneReply>; stop(): void } {
  const worker = new Worker(new URL("./demo_lane.ts", import.meta.url).href, { type: "module" });
  const reply = new Promise<LaneReply>((resolve, reject) => {
    worker.onmessage = (event) => {
      worker.terminate();
      resolve(LaneReplySchema.parse(event.data));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new Error(`demo lane (sweeps, engines) failed: ${event.message}`));
    };
  });
  worker.postMessage({ root });
  return {
    reply,
    stop: () => {
      worker.terminate();
      reply.catch(() => {}); // stopped: its outcome no longer matters
    },
  };
}

/** Runs the demo through the CLI's command table (never a suite's command line directly); returns the exit code. */
export async function demoCommand(
  argv: string[],
  commands: Readonly<Record<string, Command>>,
): Promise<number> {
  const { options, positionals } = parseOptions("demo", argv, {
    output: z.string().optional(),
    quiet: z.boolean().optional(),
  });
  if (options.help) return printHelp(HELP);
  if (positionals.length > 0) throw new UsageError(`demo: unexpected argument '${positionals[0]}'`);
  const root = options.output ?? defaultOutputPath("demo");
  await checkNewOutputPath(root, "--output");
  try {
    await Deno.mkdir(join(root, ".."), { recursive: true });
    await Deno.mkdir(root);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new UsageError(`output directory ${root} already exists; a run never reuses or overwrites one`);
    }
    throw inputError(error, root, "--output");
  }
  const quiet = options.quiet ? ["--quiet"] : [];
  const started = performance.now();
  const step = (title: string) => console.log(`\n== ${title}`);

  // Sweeps and engines run in a worker beside the hotpot lane (both cores busy); their output follows hotpot's.
  const lane = startLane(root);
  const code = await hotpotLane(commands.hotpot, root, quiet, step).catch((error) => {
    lane.stop();
    throw error;
  });
  if (code !== 0) {
    lane.stop();
    return code;
  }
  const verified: { ok: boolean; text: string }[] = [];
  for (const name of ["hotpot-corpus", "hotpot"]) {
    const report = await verifyRun(join(root, name));
    verified.push({ ok: report.ok, text: formatVerifyReport(report) });
  }

  const other = await lane.reply;
  for (const line of other.lines) console.log(line);
  if (other.error) {
    if (other.error.usage) throw new UsageError(other.error.message);
    throw new Error(`demo lane (sweeps, engines): ${other.error.message}`);
  }
  if (other.code !== 0) return other.code;

  step("verify");
  let ok = true;
  for (const run of [...verified, ...other.verified]) {
    ok &&= run.ok;
    console.log(run.text);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`\ndemo finished in ${seconds} s; runs in ${root}`);
  console.log("reports (made with the reference model: a weak, deterministic baseline, not an LLM):");
  for (const name of ["hotpot", "sweep", "sweep-frozen", "engines"]) {
    console.log(`  ${join(root, name, "REPORT.md")}`);
  }
  return ok ? 0 : 1;
}
