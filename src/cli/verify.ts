/**
 * `compaction-bench verify DIR [--json]`: the auditor's check of a run directory. Exit 0 only when every check
 * holds, 1 when a problem was found.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { formatVerifyReport, verifyRun } from "../store/verify.ts";
import { parseCommand } from "./args.ts";
import { statInputDirectory } from "../fs_input.ts";
import { rederiveCommand } from "./verify_rederive.ts";

const HELP = `compaction-bench verify DIR [--json]

Rehashes every blob of the run directory DIR, resolves every reference of its manifest and journal,
recomputes every node key, checks the DAG (no cycle; every input produced by an earlier node or declared
as a source) and every file. Names every problem: missing, altered, dangling, key_mismatch, cycle,
unknown_file, journal, manifest, file_mismatch, unfinished.

Options:
  --json      print the report as JSON
  --rederive  also re-execute every stage that calls no provider from its stored inputs and check that
              every output is byte-identical (prints how many nodes it re-derived; names any that differ)
  -h, --help  this help

Exit codes: 0 all checks hold, 1 a problem was found, 2 bad usage.`;

/** Runs `verify`; returns the exit code. */
export async function verifyCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseCommand(
    "verify",
    argv,
    { json: { type: "boolean" }, rederive: { type: "boolean" } },
    z.object({
      help: z.boolean().optional(),
      json: z.boolean().optional(),
      rederive: z.boolean().optional(),
    }),
  );
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError("verify: expected exactly one run directory (see --help)");
  }
  const dir = positionals[0];
  await statInputDirectory(dir, "verify");
  const report = await verifyRun(dir);
  console.log(options.json ? JSON.stringify(report, null, 2) : formatVerifyReport(report));
  if (options.rederive && report.ok) return await rederiveCommand(dir, options.json === true);
  return report.ok ? 0 : 1;
}
