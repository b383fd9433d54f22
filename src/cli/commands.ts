/**
 * The command table of the CLI: each command word, a one-line description, and its entry point.
 *
 * @module
 */
import { compareCommand } from "./compare.ts";
import { demoCommand } from "./demo.ts";
import { enginesCommand } from "../suites/engines/cli/engines.ts";
import { hotpotCommand } from "../suites/hotpot/cli/hotpot.ts";
import { sweepCommand } from "../suites/sweep/cli/sweep.ts";
import { serveReferenceCommand } from "./serve_reference.ts";
import { tokensCommand } from "./tokens.ts";
import { verifyCommand } from "./verify.ts";
import { mergeCommand } from "./merge.ts";
import { CLI } from "../core/program_name.ts";

/** One CLI command. */
export interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}

/** Every command word. */
export const COMMANDS: Record<string, Command> = {
  demo: {
    summary: "offline demo of every suite on the embedded fixtures and the reference model",
    run: (argv) => demoCommand(argv, COMMANDS),
  },
  hotpot: { summary: "HotpotQA compaction benchmark (collect, run, score, generate)", run: hotpotCommand },
  sweep: { summary: "frozen summary + Jev Top-N with executable repair checks (run)", run: sweepCommand },
  engines: {
    summary: "context engines head to head on long transcripts (run, generate)",
    run: enginesCommand,
  },
  tokens: { summary: "count the tokens of a messages file as the model sees them", run: tokensCommand },
  "serve-reference": {
    summary: "serve the deterministic reference model on loopback",
    run: (argv) => serveReferenceCommand(argv),
  },
  compare: { summary: "compare two finished runs of one suite, metric by metric", run: compareCommand },
  verify: { summary: "re-hash and check a run directory (auditors)", run: verifyCommand },
  merge: { summary: "join finished shards (--shard K/N) of one protocol into one run", run: mergeCommand },
};

/** The top-level help text. */
export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  const lines = Object.entries(COMMANDS).map(([word, c]) => `  ${word.padEnd(width)}  ${c.summary}`);
  return `compaction-bench: how well do context-compaction methods keep what an LLM agent needs?

Usage: ${CLI} COMMAND [options]   (COMMAND --help for details)

Commands:
${lines.join("\n")}

Exit codes: 0 ok, 1 a check failed, 2 bad input or usage, 3 internal error (a bug; set
COMPACTION_BENCH_DEBUG=1 for its stack trace).`;
}
