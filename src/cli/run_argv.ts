/**
 * A run's command line, recorded in its header and rebuilt from it for `--resume DIR`.
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../errors.ts";
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
  const argv: string[] = [];
  const rest = recorded.slice(command.length);
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (word === "--output" || word === "-o") {
      i++;
      continue;
    }
    if (word.startsWith("--output=")) continue;
    argv.push(word);
  }
  return [...argv, "--resume", dir];
}

/** Options never recorded: `--env-file` names a file of secrets; `--resume` and `--help` are not the run's. */
export const UNRECORDED_OPTIONS: readonly string[] = ["env-file", "resume", "help"];

/** The options worth recording in a run header: set values only, without help, resume and secrets' files. */
export function recordedOptions(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || UNRECORDED_OPTIONS.includes(key)) continue;
    out[key] = value;
  }
  return out;
}

/** The command words a run header records: `command` then `argv` without `--env-file`, `--resume`, `--help`. */
export function recordedCommand(command: readonly string[], argv: readonly string[]): string[] {
  const out = [...command];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    const name = word.startsWith("--") ? word.slice(2).split("=")[0] : null;
    if (name !== null && UNRECORDED_OPTIONS.includes(name)) {
      if (!word.includes("=") && name !== "help") i++;
      continue;
    }
    out.push(word);
  }
  return out;
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
