/**
 * `compaction-bench compare RUN_A RUN_B [--unpaired] [--bootstrap N] [--html FILE] [--json]`.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { compareRuns, comparisonModelLines, comparisonRows } from "../report/compare.ts";
import {
  COMPARE_REFERENCE_NOTICE,
  compareHtml,
  unitHeaders,
  unitNote,
  unitRows,
  usesReferenceModel,
} from "../report/compare_view.ts";
import { textTable } from "../core/markdown_table.ts";
import { parseOptions, printHelp, refuseExisting } from "./args.ts";
import { BOOTSTRAP_OPTION_HELP, bootstrapOption } from "./numbers.ts";
import { suiteNamed, SUITES } from "../suites/registry.ts";
import { shareNames } from "../analysis/metrics.ts";
import { CLI } from "../core/program_name.ts";

const HELP = `${CLI} compare RUN_A RUN_B [options]

Compares two finished runs of the same suite (hotpot, sweep or engines). For hotpot and sweep runs it pairs
units by id (hotpot: questions; sweep: generation × answer) and prints each method's or context kind's paired
differences B − A with a 95% bootstrap CI, a sign-flip permutation p-value and the number of pairs; then each
headline aggregate side by side. Runs over different corpora are refused unless --unpaired. Neither run is
changed.

Shares are shown in percentage points throughout (--json keeps fractions):
${
  SUITES.filter((s) => s.metrics?.some((m) => m.compare && m.kind === "share")).map((s) =>
    `  ${s.name.padEnd(9)}${
      s.metrics!.filter((m) => m.compare && m.kind === "share").map((m) => m.label).join(", ")
    }`
  ).join("\n")
}

Options:
  --unpaired           compare runs over different corpora as independent samples (says so)
${BOOTSTRAP_OPTION_HELP}
  --html FILE          also write the comparison as a self-contained HTML page with a chart of the
                       differences (e.g. compare.html; never overwrites); prints where it wrote
  --json               print the comparison as JSON
  -h, --help           this help`;

export async function compareCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("compare", argv, {
    json: z.boolean().optional(),
    unpaired: z.boolean().optional(),
    bootstrap: bootstrapOption.optional(),
    html: z.string().min(1).optional(),
  });
  if (options.help) return printHelp(HELP);
  if (positionals.length !== 2) throw new UsageError("compare: expected two run directories (see --help)");
  if (options.html !== undefined) {
    await refuseExisting(
      options.html,
      `--html ${options.html}: already exists; compare never overwrites a file`,
    );
  }
  const [a, b] = positionals;
  const comparison = await compareRuns(a, b, suiteNamed, {
    unpaired: options.unpaired,
    resamples: options.bootstrap,
  });
  const shares = shareNames(suiteNamed(comparison.suite)?.metrics ?? []);
  if (options.html !== undefined) {
    try {
      await Deno.writeTextFile(options.html, compareHtml(comparison, shares), { createNew: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new UsageError(`--html ${options.html}: no such directory`);
      }
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new UsageError(`--html ${options.html}: already exists`);
      }
      throw error;
    }
  }
  // Where the page went: on stderr with --json (stdout is the JSON), else last on stdout.
  const wrote = options.html !== undefined ? `wrote ${options.html}` : null;
  if (options.json) {
    console.log(JSON.stringify(comparison, null, 2));
    if (wrote) console.error(wrote);
  } else {
    console.log(`${comparison.suite}: A = ${comparison.a.path}, B = ${comparison.b.path}`);
    const models = comparisonModelLines(comparison);
    if (models.length > 0) console.log(`Models:\n${models.map((line) => `  ${line}`).join("\n")}`);
    console.log("");
    const units = comparison.units;
    if (units) {
      console.log(`${units.paired ? "Paired" : "UNPAIRED"} differences per ${units.unit}:`);
      console.log(unitNote(units));
      console.log(`\n${textTable(unitHeaders(units), unitRows(units))}\n`);
    }
    if (usesReferenceModel(comparison)) console.log(`${COMPARE_REFERENCE_NOTICE}\n`);
    console.log("Aggregates (shares in percentage points):");
    console.log(textTable(["", "metric", "A", "B", "B − A"], comparisonRows(comparison, shares)));
    if (wrote) console.log(`\n${wrote}`);
  }
  return 0;
}
