/**
 * The `--rederive` part of `verify`: re-executes a run's provider-free stages and prints what differs.
 * @module
 */
import { formatRederiveReport, rederiveRun } from "../pipeline/rederive.ts";
import { STAGE_REGISTRY } from "../suites/stage_registry.ts";

/** Re-derives the run `dir`; returns the exit code (0 every output identical, 1 otherwise). */
export async function rederiveCommand(dir: string, json: boolean): Promise<number> {
  const report = await rederiveRun(dir, STAGE_REGISTRY);
  console.log(json ? JSON.stringify(report, null, 2) : formatRederiveReport(report));
  return report.ok ? 0 : 1;
}
