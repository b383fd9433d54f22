/**
 * Creating or resuming the run directory of a suite command, and the options every run command shares:
 * `--output`, `--resume`, `--frozen-run`, `--check-only`, `--quiet`.
 *
 * @module
 */
import { join } from "node:path";
import { CheckFailedError, UsageError } from "../errors.ts";
import type { CheckOnlyReport } from "../suites/answer_stage.ts";
import { z } from "zod";
import { programIdentity } from "../program_identity.ts";
import { RUN_FORMAT, type RunHeader } from "../store/manifest.ts";
import { RunDir } from "../store/run_dir.ts";
import { readJournal } from "../store/journal.ts";
import { checkNewOutputPath, inputError, statInputDirectory, statInputFile } from "../fs_input.ts";
import { refuseOptionsWithResume, withoutOptions } from "./option_rules.ts";

/** The options a resume may give again, as `parseArgs` declares them. */
const RESUME_REGIVEN_SPEC = {
  quiet: { type: "boolean", short: "q" },
  "env-file": { type: "string" },
};

/** The `parseArgs` spec of the shared run options. */
export const RUN_OPTION_SPEC = {
  output: { type: "string", short: "o" },
  resume: { type: "string" },
  "frozen-run": { type: "string" },
  "check-only": { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
} as const;

/** Help lines of the shared run options. */
export const RUN_OPTION_HELP =
  `  -o, --output DIR     new run directory (refused if it exists; default: runs/<suite>-<time>)
  --resume DIR         continue an unfinished run from its journal (its recorded options are used)
  --frozen-run DIR     reuse nodes of a finished run whose keys match
  --check-only         with --frozen-run: rebuild every request offline and compare; send nothing
  -q, --quiet          no progress on stderr`;

/** A fresh default output path under `runs/`. */
export function defaultOutputPath(suite: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-").replace(/Z$/, "");
  return join("runs", `${suite}-${stamp}-${crypto.randomUUID().slice(0, 8)}`);
}

/** What a suite passes to open its run. */
export interface OpenRunRequest {
  suite: string;
  output?: string;
  resume?: string;
  /** The command words and options as given (never secrets). */
  command: string[];
  options: unknown;
  protocol: unknown;
  tokenizer: { name: string; hash: string } | null;
  sources?: Record<string, Uint8Array>;
}

/** Creates the run directory (exclusively) or resumes an unfinished one. */
export async function openRun(request: OpenRunRequest): Promise<{ run: RunDir; resumed: boolean }> {
  if (request.resume !== undefined) {
    if (request.output !== undefined) throw new UsageError("--resume and --output cannot be combined");
    await statInputDirectory(request.resume, "--resume");
    const run = await RunDir.resume(request.resume);
    if (run.header.suite !== request.suite) {
      await run.abandon();
      throw new UsageError(`${request.resume} is a '${run.header.suite}' run, not '${request.suite}'`);
    }
    return { run, resumed: true };
  }
  const header: Omit<RunHeader, "sources"> = {
    format: RUN_FORMAT,
    program: await programIdentity(),
    suite: request.suite,
    invocation: { command: request.command, options: request.options },
    tokenizer: request.tokenizer,
    protocol: request.protocol,
    created: new Date().toISOString(),
  };
  const path = request.output ?? defaultOutputPath(request.suite);
  await checkNewOutputPath(path, "--output");
  const run = await RunDir.create(path, header, request.sources ?? {});
  return { run, resumed: false };
}

/** The options worth recording in a run header: set values only, without help and file paths of secrets. */
export function recordedOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || key === "help" || key === "env-file") continue;
    out[key] = value;
  }
  return out;
}

/**
 * The argv a run was started with, for `--resume DIR`: read from the journal's header, checked to be a run
 * of `command` (e.g. `["hotpot", "run"]`), without its `--output`; `--resume DIR` is appended.
 */
export async function resumeArgv(dir: string, command: string[]): Promise<string[]> {
  await statInputDirectory(dir, "--resume");
  try {
    await Deno.lstat(join(dir, "manifest.json"));
    throw new UsageError(`${dir} is a finished run (manifest.json exists); a finished run is never resumed`);
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

/** Zod shape of the shared run options (merge into a command's schema). */
export const RunOptionsShape = {
  help: z.boolean().optional(),
  output: z.string().optional(),
  resume: z.string().optional(),
  "frozen-run": z.string().optional(),
  "check-only": z.boolean().optional(),
  quiet: z.boolean().optional(),
};

/** Prints a check-only report; throws {@link CheckFailedError} (exit 1) when an answer input differs. */
export function printCheckOnly(
  check: CheckOnlyReport,
  frozenPath: string | undefined,
  runPath: string,
): void {
  console.log(`check-only: compared ${check.compared} answer input(s) with ${frozenPath}`);
  for (const label of check.differing) console.log(`  differs: ${label}`);
  for (const label of check.missing) console.log(`  not in the frozen run: ${label}`);
  console.log(`run: ${runPath}`);
  if (check.differing.length > 0 || check.missing.length > 0) {
    throw new CheckFailedError(
      `${check.differing.length} answer input(s) differ, ${check.missing.length} missing from the frozen run`,
    );
  }
  console.log("ok: every answer input equals the frozen run's");
}

/**
 * Parses a resumable command: with `--resume DIR` (and no `--help`), the options the run was started with are
 * read back from its journal and parsed again. Positional arguments are refused.
 */
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
    // What is given again replaces what the run was started with (a different env file, say).
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
