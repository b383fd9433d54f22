/**
 * `compaction-bench verify DIR`: checks a run, or every run under a folder (exit 1 on a problem).
 * @module
 */
import { join, relative } from "node:path";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { findRuns } from "../store/find_runs.ts";
import { formatProblem, type Problem, RunChecker, type VerifyReport } from "../store/verify.ts";
import { parseOptions, printHelp } from "./args.ts";
import { statInputDirectory } from "../fs_input.ts";
import { CLI } from "../core/program_name.ts";
import { readJournal } from "../store/journal.ts";
import { RUN_FILES } from "../store/run_files.ts";
import { fsErrorCause } from "../fs_input.ts";

const HELP = `${CLI} verify DIR [--json] [--rederive] [--strict-modes]

DIR is a run directory, or a folder holding runs at any depth (such as the demo's output folder): each run
is verified and gets one line, then a total. For each run: every path is examined without following
symlinks (blobs and published files must be regular files inside the run), every
blob is rehashed, every reference of its manifest and journal resolved, every node key recomputed, the
DAG checked (no cycle; every input produced by an earlier node or declared as a source) and every file.
Names every problem: missing, altered, dangling, key_mismatch, cycle, unknown_file, journal, manifest,
file_mismatch, unfinished, not_regular, mode, unreadable, hard_link (a file with st_nlink > 1),
not_node_output (a published file that is no output of the node publishing it), undeclared_output (an
output name its stage does not declare); a folder under objects/ that is not a blob prefix is unknown_file. The writer leaves every blob read-only (0444); a
copy (zip, scp, a checkout) may lose that for every blob alike while every hash holds: that is one note,
not problems, unless --strict-modes (then each is a 'mode' problem); a writable blob beside read-only ones,
or made writable after its content was written (a chmod), is a 'mode' problem either way. A run packed with tar or zip and unpacked verifies.

Options:
  --json      print the report as JSON (one run: its report; a folder: {root, ok, runs, unreadable})
  --rederive  also re-execute every stage that calls no provider from its stored inputs and check that
              every output is byte-identical (prints how many nodes it re-derived; names any that differ)
  --strict-modes  a blob that is not read-only (0444) is a problem (the writer's own check), not a note
  -h, --help  this help

Exit codes: 0 all checks hold, 1 a problem was found, 2 bad usage.`;

/** Checks one run, calling `onProblem` for each problem as it is found. */
async function checkOne(
  run: string,
  strictModes: boolean,
  onProblem: (problem: Problem) => void,
): Promise<VerifyReport> {
  // The stages' declared outputs (loaded only by this command).
  const { declaredOutputs } = await import("../suites/stage_outputs.ts");
  const checker = new RunChecker(run, { strictModes, declaredOutputs });
  const problems: Problem[] = [];
  for await (const problem of checker.check()) {
    problems.push(problem);
    onProblem(problem);
  }
  return { run, ok: problems.length === 0, ...checker.stats, problems, notes: checker.notes };
}

function counts(report: VerifyReport): string {
  return `${report.blobs_checked} blobs (${report.bytes_checked} bytes), ${report.nodes_checked} nodes`;
}

/** The line naming the command that continues an unfinished run, or null. */
async function unfinishedHint(report: VerifyReport): Promise<string | null> {
  if (!report.problems.some((p) => p.kind === "unfinished")) return null;
  let header;
  try {
    header = (await readJournal(join(report.run, RUN_FILES.journal))).header;
  } catch (error) {
    if (fsErrorCause(error) !== undefined || error instanceof SyntaxError || error instanceof UsageError) {
      return null;
    }
    throw error;
  }
  if (!header) return null;
  // The suites (and all they load) only for an unfinished run.
  const { resumeCommandLine } = await import("./interrupt_hint.ts");
  const { suiteNamed } = await import("../suites/registry.ts");
  const resume = resumeCommandLine(suiteNamed(header.suite), report.run);
  return resume === null
    ? `the run never finished and cannot be resumed (a '${
      header.invocation.command.slice(0, 2).join(" ")
    }' run): start it again`
    : `the run never finished; continue it with: ${resume}`;
}

/** `verify --rederive` of one run, printing what differs (loads every suite: only when asked for). */
async function rederive(run: string, json: boolean): Promise<number> {
  const { formatRederiveReport, rederiveRun } = await import("../pipeline/rederive.ts");
  const report = await rederiveRun(run, (await import("../suites/stage_registry.ts")).STAGE_REGISTRY);
  console.log(json ? JSON.stringify(report, null, 2) : formatRederiveReport(report));
  return report.ok ? 0 : 1;
}

export async function verifyCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("verify", argv, {
    json: z.boolean().optional(),
    rederive: z.boolean().optional(),
    "strict-modes": z.boolean().optional(),
  });
  if (options.help) return printHelp(HELP);
  if (positionals.length !== 1) {
    throw new UsageError("verify: expected exactly one run directory or folder of runs (see --help)");
  }
  const dir = positionals[0];
  const strictModes = options["strict-modes"] === true;
  await statInputDirectory(dir, "verify");
  const { runs, unreadable } = await findRuns(dir);
  if (runs.length === 1 && runs[0] === dir) {
    if (!options.json) console.log(`verify ${dir}`);
    const report = await checkOne(
      dir,
      strictModes,
      (p) => options.json || console.log(`  ${formatProblem(p)}`),
    );
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else {
      for (const note of report.notes) console.log(`note: ${note}`);
      console.log(counts(report));
      console.log(report.ok ? "ok: every check holds" : `FAILED: ${report.problems.length} problem(s)`);
      const hint = await unfinishedHint(report);
      if (hint !== null) console.log(hint);
    }
    if (options.rederive && report.ok) return await rederive(dir, options.json === true);
    return report.ok ? 0 : 1;
  }
  if (runs.length === 0 && unreadable.length === 0) {
    throw new UsageError(`verify: ${dir} is not a run directory and holds no run directory`);
  }
  const reports: VerifyReport[] = [];
  for (const run of runs) {
    const report = await checkOne(run, strictModes, () => {});
    reports.push(report);
    if (options.json) continue;
    const name = relative(dir, run);
    console.log(
      report.ok
        ? `ok      ${name}: ${counts(report)}`
        : `FAILED  ${name}: ${report.problems.length} problem(s); ${counts(report)}`,
    );
    for (const p of report.problems) console.log(`  ${formatProblem(p)}`);
    for (const note of report.notes) console.log(`  note: ${note}`);
    const hint = await unfinishedHint(report);
    if (hint !== null) console.log(`  ${hint}`);
  }
  let failed = reports.filter((r) => !r.ok).length;
  if (options.rederive) {
    for (const report of reports.filter((r) => r.ok)) {
      if (await rederive(report.run, options.json === true) !== 0) failed++;
    }
  }
  const ok = failed === 0 && unreadable.length === 0;
  if (options.json) console.log(JSON.stringify({ root: dir, ok, runs: reports, unreadable }, null, 2));
  else {
    for (const folder of unreadable) console.log(`FAILED  ${relative(dir, folder) || "."}: cannot be listed`);
    const extra = unreadable.length > 0 ? `, ${unreadable.length} folder(s) not readable` : "";
    console.log(`total: ${runs.length} run(s), ${runs.length - failed} ok, ${failed} failed${extra}`);
  }
  return ok ? 0 : 1;
}
