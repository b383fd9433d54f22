/**
 * The demo's second lane, run in a worker beside the hotpot lane so that the demo keeps both cores busy: the
 * sweep, the sweep that reuses it (`--frozen-run`) and engines, then the verification of those three runs.
 * (Engines' latencies are therefore measured beside the hotpot lane, each lane on its own core; a benchmark
 * of latency runs `engines run` alone.) The lane runs quietly; what its commands print is collected and sent
 * back with its exit code, so the demo prints each lane's output whole, in order. This module is a worker's
 * entry only: importing it elsewhere would take over that thread's console.
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import { formatVerifyReport, verifyRun } from "../store/verify.ts";
import { COMMANDS } from "./commands.ts";
import { type LaneReply, LaneRequestSchema } from "./demo_lane_messages.ts";

/** The runs this lane makes, in order (each a directory under the demo's root). */
export const LANE_RUNS = ["sweep", "sweep-frozen", "engines"] as const;

/**
 * The lane's steps (titles and commands of the CLI's command table), run one after the other; stops at the
 * first non-zero code.
 */
async function runLane(root: string, step: (title: string) => void): Promise<number> {
  const { sweep, engines } = COMMANDS;
  step("sweep run (frozen summary + Jev Top-N, sandboxed repair checks)");
  const first = await sweep.run(["run", "--reference", "--output", `${root}/sweep`, "--quiet"]);
  if (first !== 0) return first;

  step("sweep run --frozen-run (reuses every summary and ranking, answers afresh)");
  const reused = await sweep.run([
    "run",
    "--reference",
    "--frozen-run",
    `${root}/sweep`,
    "--output",
    `${root}/sweep-frozen`,
    "--quiet",
  ]);
  if (reused !== 0) return reused;

  step("engines run (every built-in engine on a generated 200-turn transcript)");
  return await engines.run(["run", "--reference", "--output", `${root}/engines`, "--quiet"]);
}

/** Verifies the lane's runs, each into one entry of the reply. */
async function verifyLane(root: string): Promise<LaneReply["verified"]> {
  const verified: LaneReply["verified"] = [];
  for (const run of LANE_RUNS) {
    const report = await verifyRun(`${root}/${run}`);
    verified.push({ run, ok: report.ok, text: formatVerifyReport(report) });
  }
  return verified;
}

/** Runs the lane in this worker: collects console output and replies once. */
function serveLane(scope: { onmessage: unknown; postMessage(message: unknown): void }): void {
  const lines: string[] = [];
  const collect = (...args: unknown[]) =>
    lines.push(args.map((a) => (typeof a === "string" ? a : Deno.inspect(a))).join(" "));
  console.log = collect;
  console.error = collect;
  console.warn = collect;
  scope.onmessage = async (event: MessageEvent) => {
    const { root } = LaneRequestSchema.parse(event.data);
    let reply: LaneReply;
    try {
      const code = await runLane(root, (title) => lines.push(`\n== ${title}`));
      reply = { lines, code, verified: code === 0 ? await verifyLane(root) : [] };
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      reply = {
        lines,
        verified: [],
        code: error instanceof UsageError ? 2 : 3,
        error: {
          usage: error instanceof UsageError,
          message: error.message,
        },
      };
    }
    scope.postMessage(reply);
  };
}

// This module is only ever a worker's entry (the demo starts it by URL).
serveLane(globalThis as unknown as { onmessage: unknown; postMessage(message: unknown): void });
