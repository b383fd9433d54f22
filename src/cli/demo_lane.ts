/**
 * The demo's second lane (sweeps, engines, their verification), run quietly in a worker beside the hotpot lane;
 * a worker's entry only (importing it elsewhere would take over that thread's console).
 * @module
 */
import { UsageError } from "../errors.ts";
import { formatVerifyReport, verifyRun } from "../store/verify.ts";
import { COMMANDS } from "./commands.ts";
import { z } from "zod";
import type { LaneReply } from "./demo.ts";

/** What the demo sends the lane: the folder of its runs. */
const LaneRequestSchema = z.object({ root: z.string() });

export const LANE_RUNS = ["sweep", "sweep-frozen", "engines"] as const;

/** The lane's steps (commands of the CLI's command table), run in order; stops at the first non-zero code. */
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

async function verifyLane(root: string): Promise<LaneReply["verified"]> {
  const verified: LaneReply["verified"] = [];
  for (const run of LANE_RUNS) {
    const report = await verifyRun(`${root}/${run}`);
    verified.push({ run, ok: report.ok, text: formatVerifyReport(report) });
  }
  return verified;
}

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
        error: { usage: error instanceof UsageError, message: error.message },
      };
    }
    scope.postMessage(reply);
  };
}

serveLane(globalThis as unknown as { onmessage: unknown; postMessage(message: unknown): void });
