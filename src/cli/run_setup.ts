/**
 * The options every run command shares (`--output`, `--resume`, `--frozen-run`, `--check-only`, `--quiet`).
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { resumeArgv, runInvocation } from "./run_argv.ts";
import { type ResumableSuite, whileWriting } from "./interrupt_hint.ts";
import type { RunInvocation } from "../suites/run_lifecycle.ts";
import { refuseOptionsWithResume, withoutOptions } from "../core/option_rules.ts";

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
