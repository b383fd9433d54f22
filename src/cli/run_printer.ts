/**
 * How the CLI shows a suite run: progress and notes on stderr, the summary, the retry's outcome and the path.
 * @module
 */
import { CheckFailedError } from "../errors.ts";
import type { CheckOnlyReport } from "../suites/run_lifecycle.ts";
import type { FailedConditions, RetryOutcome, RunNote, RunPrinter } from "../suites/run_lifecycle.ts";
import { Progress } from "../pipeline/progress.ts";
import { resumeCommandLine, whileWriting } from "./interrupt_hint.ts";

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

export function noteText(note: RunNote): string {
  switch (note.kind) {
    case "resumed":
      return `resuming ${note.path}: ${note.nodes} completed node(s) in the journal`;
    case "retrying":
      return `retrying ${note.from}: its ${note.failed} failed node(s) and what depends on them are executed ` +
        "again; every node it finished ok is reused";
    case "took-over":
      return `took over the lock of process ${note.pid}, which died`;
    case "interrupted": {
      const resume = resumeCommandLine(note.suite, note.path);
      return `run interrupted; ${resume === null ? "start it again" : `continue it with: ${resume}`}`;
    }
  }
}

/** What `--retry-failed` did: RUN's failed nodes, and this run's nodes executed again. */
export function retriedLine(retried: RetryOutcome): string {
  return `retried ${retried.failed} failed node(s) of ${retried.from}: ${retried.executed} node(s) executed ` +
    `(${retried.sameKey} with the same key, the rest with new inputs), ${retried.reused} reused from it`;
}

/** What a run with failed conditions says: the count per kind, the first error and the command that recovers. */
export function failedLines(failed: FailedConditions): string[] {
  const kinds = failed.counts.map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : "s"}`).join(", ");
  return [
    `FAILED: ${failed.total} provider or engine call(s) failed after their retries (${kinds}): the conditions ` +
    "that depend on them are invalid, not results",
    `  first error (${failed.first.label}): ${failed.first.error}`,
    failed.retry !== null
      ? `  recover them (every node that finished ok is reused; fix the cause first): ${failed.retry}`
      : `  this suite is not retried (its timings are measured afresh); fix the cause and run it again: ${failed.rerun}`,
  ];
}

export const CONSOLE_PRINTER: RunPrinter = {
  progress: (title, quiet, names) => new Progress(title, { quiet, names }),
  note: (progress, note) => progress.note(noteText(note)),
  writing: (suite, path) => whileWriting(suite, path),
  finished({ lines, path, report, retried, failed }) {
    for (const line of lines) console.log(line);
    const reports = report ? `\nreport: ${path}/REPORT.md (and report.html)` : "";
    if (retried !== undefined) console.log(`\n${retriedLine(retried)}`);
    console.log(`\nrun: ${path}${reports}`);
    if (failed) {
      console.log(`\n${failedLines(failed).join("\n")}`);
      throw new CheckFailedError(
        `${failed.total} condition(s) failed for a provider or engine reason (not measured; see above)`,
      );
    }
  },
  checkOnly: printCheckOnly,
};
