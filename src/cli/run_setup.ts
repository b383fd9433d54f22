/**
 * The options every run command shares (`--output`, `--resume`, `--frozen-run`, `--check-only`, `--quiet`),
 * and a run's command line, recorded in its header and rebuilt from it for `--resume DIR`.
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { type ResumableSuite, whileWriting } from "./interrupt_hint.ts";
import type { RunInvocation, RunPrinter } from "../suites/run_lifecycle.ts";
import type { Suite } from "../suites/suite.ts";
import { refuseOptionsWithResume, withoutOptions } from "../core/option_rules.ts";
import { inputError, statInputDirectory, statInputFile } from "../fs_input.ts";
import { readJournal } from "../store/journal.ts";
import { finishedRunRefusal } from "../store/run_dir.ts";
import { CONSOLE_PRINTER } from "./run_printer.ts";

const RESUME_REGIVEN_SPEC = { quiet: { type: "boolean", short: "q" }, "env-file": { type: "string" } };

export { defaultOutputPath, openRun } from "../suites/run_lifecycle.ts";

export const RUN_OPTION_HELP =
  `  -o, --output DIR     new run directory (refused if it exists; default: runs/<suite>-<time>)
  --resume DIR         continue an unfinished run from its journal (its recorded options are used)
  --frozen-run DIR     reuse nodes of a finished run whose keys match
  --retry-failed RUN   a new run (--output) with RUN's protocol: reuses every node RUN finished well
                       (answers included) and calls the provider only for the nodes that failed there
                       and what depends on them
  --check-only         with --frozen-run: rebuild every request offline and compare; send nothing
  -q, --quiet          no progress on stderr`;

/** The exit codes of a run command, for its help. */
export const RUN_EXIT_HELP =
  `Exit codes: 0 the run finished and every condition completed (valid, or honestly invalid such as an
overrun); 1 it finished but conditions failed for a provider or engine reason (it names the count per kind,
the first error and the command that recovers them), or a check failed; 2 bad input or usage (nothing is
written); 130/143 stopped by SIGINT/SIGTERM (continue with --resume DIR).`;

export const RunOptionsShape = {
  output: z.string().optional(),
  resume: z.string().optional(),
  "frozen-run": z.string().optional(),
  "retry-failed": z.string().optional(),
  "check-only": z.boolean().optional(),
  quiet: z.boolean().optional(),
};

/** Parses a resumable command; with `--resume DIR` the run's recorded options are parsed instead. */
export async function parseResumable<T extends { help?: boolean; resume?: string }>(
  command: string[],
  givenArgv: string[],
  parse: (argv: string[]) => { options: T; positionals: string[] },
): Promise<{ argv: string[]; options: T }> {
  let argv = givenArgv;
  let parsed = parse(argv);
  if (!parsed.options.help && parsed.options.resume) {
    refuseOptionsWithResume(command.join(" "), parsed.options);
    const given = parsed.options as { quiet?: boolean; "env-file"?: string };
    // What is given again replaces what the run was started with.
    const regiven = [
      ...(given.quiet ? ["quiet"] : []),
      ...(given["env-file"] !== undefined ? ["env-file"] : []),
    ];
    argv = [
      ...withoutOptions(await resumeArgv(parsed.options.resume, command), regiven, RESUME_REGIVEN_SPEC),
      ...(given.quiet ? ["--quiet"] : []),
      ...(given["env-file"] !== undefined ? ["--env-file", given["env-file"]] : []),
    ];
    parsed = parse(argv);
  }
  if (parsed.positionals.length > 0) {
    throw new UsageError(`${command.join(" ")}: unexpected argument '${parsed.positionals[0]}'`);
  }
  return { argv, options: parsed.options };
}

/** The entry of a resumable run command: parses, prints `help`, or runs `command` with the interrupt hint armed. */
export async function runResumableCommand<
  T extends { help?: boolean; resume?: string; output?: string },
  R,
>(
  suite: ResumableSuite,
  givenArgv: string[],
  parse: (argv: string[]) => { options: T; positionals: string[] },
  help: string,
  command: (options: T, invocation: RunInvocation) => Promise<R>,
): Promise<R | undefined> {
  const { argv, options } = await parseResumable([...suite.command], givenArgv, parse);
  if (options.help) {
    console.log(help);
    return undefined;
  }
  const prepared = whileWriting(suite, options.output ?? options.resume);
  try {
    return await command(options, runInvocation(suite, argv, options));
  } finally {
    prepared();
  }
}

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
