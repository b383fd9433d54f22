/**
 * How the CLI shows a finished suite run (the {@link RunPrinter} every run command hands the run life cycle):
 * the suite's summary lines, the retry note and the run's path; for a check-only run the comparison with the
 * frozen run, exit 1 when an answer input differs.
 *
 * @module
 */
import { CheckFailedError } from "../errors.ts";
import type { CheckOnlyReport } from "../suites/answer_stage.ts";
import type { RunPrinter } from "../suites/run_lifecycle.ts";

/** Prints a check-only report; throws {@link CheckFailedError} (exit 1) when an answer input differs. */
export function printCheckOnly(
  check: CheckOnlyReport,
  frozenPath: string | undefined,
  runPath: string | null,
): void {
  console.log(`check-only: compared ${check.compared} answer input(s) with ${frozenPath}`);
  for (const label of check.differing) console.log(`  differs: ${label}`);
  for (const label of check.missing) console.log(`  not in the frozen run: ${label}`);
  console.log(
    runPath === null ? "run: not kept (give --output DIR to keep the check-only run)" : `run: ${runPath}`,
  );
  if (check.differing.length > 0 || check.missing.length > 0) {
    throw new CheckFailedError(
      `${check.differing.length} answer input(s) differ, ${check.missing.length} missing from the frozen run`,
    );
  }
  console.log("ok: every answer input equals the frozen run's");
}

/** The printer of every run command: stdout. */
export const CONSOLE_PRINTER: RunPrinter = {
  finished({ lines, path, report, retried }) {
    for (const line of lines) console.log(line);
    const reports = report ? `\nreport: ${path}/REPORT.md (and report.html)` : "";
    if (retried !== undefined) console.log(`\n${retried}`);
    console.log(`\nrun: ${path}${reports}`);
  },
  checkOnly: printCheckOnly,
};
