/**
 * `compaction-bench sweep run`: a frozen summary plus the decision model's Top-N evidence units.
 *
 * @module
 */
import { z } from "zod";
import { assetPath } from "../assets.ts";
import { UsageError } from "../errors.ts";
import {
  MODEL_OPTION_HELP,
  MODEL_OPTION_SPEC,
  ModelOptionsShape,
  setupModels,
} from "../suites/model_setup.ts";
import { openFrozen, withRun } from "../suites/run_lifecycle.ts";
import { aggregateSweep } from "../suites/sweep/aggregate.ts";
import { contextKinds } from "../suites/sweep/contexts.ts";
import { loadSweepFixture } from "../suites/sweep/fixture.ts";
import { assertSandboxAvailable } from "../suites/sweep/sandbox.ts";
import { DEFAULT_SWEEP_TRAJECTORY } from "../suites/sweep/oracle.ts";
import { sweepReportMarkdown } from "../suites/sweep/report.ts";
import { sweepReportHtml } from "../report/sweep_html.ts";
import { DEFAULT_SWEEP_RUN, runSweep } from "../suites/sweep/run_suite.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { parseCommand } from "./args.ts";
import { readInputFile } from "../fs_input.ts";
import { intOption, rangeOption } from "./numbers.ts";
import {
  parseResumable,
  printCheckOnly,
  recordedOptions,
  RUN_OPTION_HELP,
  RUN_OPTION_SPEC,
  RunOptionsShape,
} from "./run_setup.ts";

const HELP = `compaction-bench sweep run (--reference | --live) [options]

For each generation, freezes one summary S of all evidence and one decision-model ranking (neither sees the
follow-up or the gold), then answers the follow-up from full, S and S + Top N, and scores each answer with ten
exact fact checks and six executable repair checks run in a sandbox.

Options:
  --trajectory FILE    the investigation trajectory (default: the embedded fixture; only known fixtures)
  --compressions N     generations of (S, ranking) (default ${DEFAULT_SWEEP_RUN.compressions}, at most 100)
  --top-n RANGE        N values, e.g. 1-5 (at most 10; default 1-5)
  --input-cap N        ceiling of the complete answer input (default ${DEFAULT_SWEEP_RUN.inputCap}, 256 to 10000000)
  --summary-allowance N  complete input allowance of S alone (default ${DEFAULT_SWEEP_RUN.summaryAllowance}, 128 to 10000000)
  --reserve N          tokens kept free under the ceilings (default ${DEFAULT_SWEEP_RUN.reserve}, at most 100000)
  --answers N          answers per context (default ${DEFAULT_SWEEP_RUN.answers}, at most 100)
  --tokenizer DIR      tokenizer (default: Qwen3, embedded)
${MODEL_OPTION_HELP}
${RUN_OPTION_HELP}`;

function parseRun(argv: string[]) {
  return parseCommand(
    "sweep run",
    argv,
    {
      ...RUN_OPTION_SPEC,
      ...MODEL_OPTION_SPEC,
      trajectory: { type: "string" },
      compressions: { type: "string" },
      "top-n": { type: "string" },
      "input-cap": { type: "string" },
      "summary-allowance": { type: "string" },
      reserve: { type: "string" },
      answers: { type: "string" },
      tokenizer: { type: "string" },
    },
    z.object({
      ...RunOptionsShape,
      ...ModelOptionsShape,
      trajectory: z.string().optional(),
      compressions: intOption(1, 100).optional(),
      "top-n": rangeOption(1, 10).optional(),
      "input-cap": intOption(256, 10_000_000).optional(),
      "summary-allowance": intOption(128, 10_000_000).optional(),
      reserve: intOption(0, 100_000).optional(),
      answers: intOption(1, 100).optional(),
      tokenizer: z.string().optional(),
    }),
  );
}

/** Runs `sweep run`; returns the exit code and the run directory (exported for the demo). */
export async function sweepRun(givenArgv: string[]): Promise<{ code: number; path?: string }> {
  const { argv, options } = await parseResumable(["sweep", "run"], givenArgv, parseRun);
  if (options.help) {
    console.log(HELP);
    return { code: 0 };
  }
  assertSandboxAvailable();
  const fixture = await loadSweepFixture(options.trajectory ?? assetPath(DEFAULT_SWEEP_TRAJECTORY));
  const runOptions = {
    ...DEFAULT_SWEEP_RUN,
    ...(options.compressions !== undefined ? { compressions: options.compressions } : {}),
    ...(options["top-n"] !== undefined ? { topN: options["top-n"] } : {}),
    ...(options["input-cap"] !== undefined ? { inputCap: options["input-cap"] } : {}),
    ...(options["summary-allowance"] !== undefined ? { summaryAllowance: options["summary-allowance"] } : {}),
    ...(options.reserve !== undefined ? { reserve: options.reserve } : {}),
    ...(options.answers !== undefined ? { answers: options.answers } : {}),
  };
  if (runOptions.reserve >= Math.min(runOptions.inputCap, runOptions.summaryAllowance)) {
    throw new UsageError("--reserve must be smaller than --input-cap and --summary-allowance");
  }
  const checkOnly = options["check-only"] === true;
  const frozen = await openFrozen(options["frozen-run"], checkOnly);
  if (frozen) {
    const generations = new Set(
      frozen.nodesOf("sweep-summary").map((n) => (n.params as { generation?: number }).generation),
    );
    if (frozen.manifest.suite !== "sweep") {
      throw new UsageError(
        `--frozen-run ${frozen.path} is a '${frozen.manifest.suite}' run, not a sweep run`,
      );
    }
    if (generations.size !== runOptions.compressions) {
      throw new UsageError(
        `--compressions ${runOptions.compressions} differs from the ${generations.size} frozen summary ` +
          `generation(s) of ${frozen.path}`,
      );
    }
  }
  const counter = await loadTokenCounter(options.tokenizer);
  const trajectoryBytes = await readInputFile(fixture.path, "--trajectory");
  const models = await setupModels(options, counter, checkOnly, frozen?.manifest.protocol);
  try {
    const finished = await withRun(
      {
        suite: "sweep",
        output: options.output,
        resume: options.resume,
        command: ["sweep", "run", ...argv.filter((a, i) => a !== "--resume" && argv[i - 1] !== "--resume")],
        options: recordedOptions(options),
        protocol: { suite: "sweep", ...runOptions, fixture: fixture.hash, models: models.description },
        tokenizer: { name: counter.name, hash: counter.hash },
        sources: { trajectory: trajectoryBytes },
        quiet: options.quiet,
        frozen,
        checkOnly,
      },
      async (context) => {
        const outcome = await runSweep(context, fixture, runOptions, models, counter);
        const kinds = contextKinds(runOptions.topN);
        const aggregates = aggregateSweep(outcome.rows, kinds);
        await context.run.writeJsonFile("protocol.json", {
          suite: "sweep",
          ...runOptions,
          models: models.description,
          tokenizer: { name: counter.name, hash: counter.hash },
          fixture: {
            name: fixture.name,
            sha256: fixture.hash,
            units: fixture.units.map((u) => u.id),
            facts: fixture.facts.map((f) => ({ name: f.name, text: f.text })),
            repair: fixture.repair,
          },
        });
        if (outcome.checkOnly) {
          // Nothing was answered: a check-only run publishes its comparison, never scores.
          await context.run.writeJsonFile("check.json", outcome.checkOnly);
          return { aggregates, outcome };
        }
        await context.run.writeJsonFile("results.json", outcome.rows);
        await context.run.writeJsonFile("aggregate.json", aggregates);
        const reportMeta = {
          fixture: {
            name: fixture.name,
            hash: fixture.hash,
            units: fixture.units.length,
            facts: fixture.facts.length,
          },
          models: models.description,
          tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
          options: runOptions,
          compressionUsage: outcome.compressionUsage,
          reusedCompression: outcome.reusedCompression,
          frozenRun: frozen?.path,
        };
        await context.run.writeFile("REPORT.md", sweepReportMarkdown(aggregates, reportMeta));
        await context.run.writeFile("report.html", sweepReportHtml(aggregates, reportMeta));
        return { aggregates, outcome };
      },
    );
    const { aggregates, outcome } = finished.result;
    if (outcome.checkOnly) {
      printCheckOnly(outcome.checkOnly, options["frozen-run"], finished.path);
      return { code: 0, path: finished.path };
    }
    for (const a of aggregates) {
      console.log(
        `${a.kind.padEnd(8)} facts ${(100 * a.fact_score).toFixed(1).padStart(5)}  repair ${
          (100 * a.repair_pass_share).toFixed(1).padStart(5)
        }  valid ${a.valid}/${a.planned}`,
      );
    }
    console.log(
      `compression calls: ${outcome.compressionUsage.calls}; reused nodes: ${outcome.reusedCompression}`,
    );
    console.log(`\nrun: ${finished.path}\nreport: ${finished.path}/REPORT.md`);
    return { code: 0, path: finished.path };
  } finally {
    await models.close();
  }
}

/** Dispatches `sweep run`. */
export async function sweepCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "run") return (await sweepRun(rest)).code;
  if (sub === undefined || sub === "--help" || sub === "-h") {
    console.log("compaction-bench sweep run [options]   (see 'sweep run --help')");
    return sub === undefined ? 2 : 0;
  }
  throw new UsageError(`sweep: unknown subcommand '${sub}' (expected run)`);
}
