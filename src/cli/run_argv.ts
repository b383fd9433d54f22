/**
 * A run's command line, recorded in its header and rebuilt from it for `--resume DIR`.
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../errors.ts";
import { withoutOptions } from "../core/option_rules.ts";
import { inputError, statInputDirectory, statInputFile } from "../fs_input.ts";
import { readJournal } from "../store/journal.ts";
import { finishedRunRefusal } from "../store/run_dir.ts";
import type { RunInvocation, RunPrinter } from "../suites/run_lifecycle.ts";
import type { Suite } from "../suites/suite.ts";
import { CONSOLE_PRINTER } from "./run_printer.ts";

/** The argv a run was started with (its header's, checked to be of `command`), without `--output`, for `--resume`. */
export async function resumeArgv(dir: string, command: string[]): Promise<string[]> {
  await statInputDirectory(dir, "--resume");
  try {
    await Deno.lstat(join(dir, "manifest.json"));
    throw finishedRunRefusal(dir);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw inputError(error, dir, "--resume");
  }
  const journal = join(dir, "journal.jsonl");
  try {
    await Deno.lstat(journal);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`--resume ${dir}: not a run directory (no journal)`);
    }
    throw inputError(error, journal, "--resume");
  }
  await statInputFile(journal, "--resume");
  let header;
  try {
    header = (await readJournal(journal)).header;
  } catch (error) {
    throw inputError(error, journal, "--resume");
  }
  if (!header) throw new UsageError(`--resume ${dir}: the journal has no header`);
  const recorded = header.invocation.command;
  if (command.some((word, i) => recorded[i] !== word)) {
    throw new UsageError(
      `--resume ${dir}: a '${recorded.slice(0, 2).join(" ")}' run, not '${command.join(" ")}'`,
    );
  }
  const rest = recorded.slice(command.length);
  return [...withoutOptions(rest, ["output"], { output: { type: "string", short: "o" } }), "--resume", dir];
}

/** Options never recorded: `--env-file` names a file of secrets; `--resume` and `--help` are not the run's. */
export const UNRECORDED_OPTIONS: readonly string[] = ["env-file", "resume", "help"];

/** The options worth recording in a run header: set values only, without help, resume and secrets' files. */
export function recordedOptions(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(options).filter(([key, value]) =>
      value !== undefined && !UNRECORDED_OPTIONS.includes(key)
    ),
  );
}

/** The command words a run header records: `command` then `argv` without `--env-file`, `--resume`, `--help`. */
export function recordedCommand(command: readonly string[], argv: readonly string[]): string[] {
  const spec = { "env-file": { type: "string" }, resume: { type: "string" }, help: { type: "boolean" } };
  return [...command, ...withoutOptions(argv, UNRECORDED_OPTIONS, spec)];
}

/** How the CLI invokes a run of `suite`: the recorded command words and options, output to stdout. */
export function runInvocation(
  suite: Pick<Suite, "command">,
  argv: string[],
  options: Readonly<Record<string, unknown>>,
  printer: RunPrinter = CONSOLE_PRINTER,
): RunInvocation {
  return {
    argv,
    options: { ...options },
    command: recordedCommand(suite.command, argv),
    recordedOptions: recordedOptions(options),
    printer,
  };
}
