/**
 * `compaction-bench sweep case check DIR`: checks a sweep case folder.
 * @module
 */
import { UsageError } from "../../errors.ts";
import { CLI } from "../../core/program_name.ts";
import { checkSweepCase } from "../../suites/sweep/case_checks.ts";
import { assertSandboxAvailable } from "../../suites/sweep/sandbox.ts";

const HELP = `${CLI} sweep case check DIR

Checks a sweep case folder (docs/SWEEP_CASES.md): case.json's fields, the trajectory's pinned SHA-256, units
that tile every tool result exactly, every fact verbatim in its unit and in neither the follow-up nor a system
prompt, the checks module loading in the sandbox, the reference repair passing every check and an empty repair
failing every check. Prints every defect (file, field, value); exit 0 when there is none, 1 otherwise.`;

/**
 * Runs `sweep case ...`; returns the exit code.
 * @example
 * ```ts
 * await sweepCaseCommand(["check", "fixtures/sweep/payments"]); // 0
 * ```
 */
export async function sweepCaseCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "--help" || sub === "-h" || (sub === "check" && (rest[0] === "--help" || rest[0] === "-h"))) {
    console.log(HELP);
    return 0;
  }
  if (sub !== "check") throw new UsageError(`sweep case: unknown subcommand '${sub ?? ""}' (expected check)`);
  if (rest.length !== 1 || rest[0].startsWith("-")) {
    throw new UsageError(`sweep case check: give one case folder (got ${JSON.stringify(rest)})`);
  }
  await assertSandboxAvailable();
  const report = await checkSweepCase(rest[0]);
  for (const note of report.notes) console.log(`ok: ${note}`);
  for (const problem of report.problems) console.log(`defect: ${problem}`);
  if (report.problems.length > 0) {
    console.log(`sweep case check ${rest[0]}: ${report.problems.length} defect(s)`);
    return 1;
  }
  console.log(`sweep case check ${rest[0]}: ok`);
  return 0;
}
