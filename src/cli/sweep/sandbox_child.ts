/**
 * The single binary's entry to the sweep's repair sandbox child (its modules load only in that process).
 * @module
 */
export { REPAIR_SANDBOX_COMMAND } from "../../suites/sweep/sandbox_gateway.ts";

/** Serves as the repair sandbox child (loads its modules now); returns the exit code. */
export async function serveRepairSandbox(): Promise<number> {
  return (await import("../../suites/sweep/sandbox_child.ts")).serveRepairSandbox();
}
