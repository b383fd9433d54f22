/**
 * `compaction-bench compare RUN_A RUN_B [--json]`: two finished runs of one suite, metric by metric.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { compareRuns, comparisonRows } from "../report/compare.ts";
import { textTable } from "../report/markdown_table.ts";
import { parseCommand } from "./args.ts";
import { suiteNamed } from "../suites/registry.ts";

const HELP = `compaction-bench compare RUN_A RUN_B [--json]

Compares two finished runs of the same suite (hotpot, sweep or engines): each headline metric per method,
context kind or engine, with the difference B − A. Neither run is changed.

Options:
  --json      print the comparison as JSON`;

/** Runs `compare`; returns the exit code. */
export async function compareCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseCommand(
    "compare",
    argv,
    { json: { type: "boolean" } },
    z.object({ help: z.boolean().optional(), json: z.boolean().optional() }),
  );
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError("compare: expected two run directories (see --help)");
  const comparison = await compareRuns(
    positionals[0],
    positionals[1],
    (suite) => suiteNamed(suite)?.compareMetrics,
  );
  if (options.json) console.log(JSON.stringify(comparison, null, 2));
  else {
    console.log(`${comparison.suite}: A = ${comparison.a.path}, B = ${comparison.b.path}\n`);
    console.log(textTable(["", "metric", "A", "B", "B − A"], comparisonRows(comparison), 4));
  }
  return 0;
}
