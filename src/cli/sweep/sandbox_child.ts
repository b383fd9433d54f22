/**
 * The single binary's entry to the sweep's repair sandbox child: its hidden command word, and the child's
 * modules loaded only in the process that serves as the child.
 *
 * @module
 */
export { REPAIR_SANDBOX_COMMAND } from "../../suites/sweep/sandbox_command.ts";

/** Serves as the repair sandbox child (loads its modules now); returns the exit code. */
export async function serveRepairSandbox(): Promise<number> {
  return (await import("../../suites/sweep/sandbox_child.ts")).serveRepairSandbox();
}
