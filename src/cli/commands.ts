/**
 * The command table of the CLI: each command word, a one-line description, and its entry point. A command's
 * modules are imported when it runs, so a process loads only the command it was started for (start-up is
 * part of every run's CPU).
 *
 * @module
 */
import { CLI } from "../core/program_name.ts";
import type { Command } from "./command.ts";

export type { Command } from "./command.ts";

/** Every command word. */
export const COMMANDS: Record<string, Command> = {
  demo: {
    summary: "offline demo of every suite on the embedded fixtures and the reference model",
    run: async (argv) => (await import("./demo.ts")).demoCommand(argv, COMMANDS),
  },
  hotpot: {
    summary: "HotpotQA compaction benchmark (collect, run, predictions, score, generate)",
    run: async (argv) => (await import("./hotpot/hotpot.ts")).hotpotCommand(argv),
  },
  sweep: {
    summary: "frozen summary + Jev Top-N with executable repair checks (run, case check)",
    run: async (argv) => (await import("./sweep/sweep.ts")).sweepCommand(argv),
  },
  engines: {
    summary: "context engines head to head on long transcripts (run, generate)",
    run: async (argv) => (await import("./engines/engines.ts")).enginesCommand(argv),
  },
  tokens: {
    summary: "count the tokens of a messages file as the model sees them",
    run: async (argv) => (await import("./tokens.ts")).tokensCommand(argv),
  },
  "serve-reference": {
    summary: "serve the deterministic reference model on loopback",
    run: async (argv) => (await import("./serve_reference.ts")).serveReferenceCommand(argv),
  },
  compare: {
    summary: "compare two finished runs of one suite, metric by metric",
    run: async (argv) => (await import("./compare.ts")).compareCommand(argv),
  },
  verify: {
    summary: "re-hash and check a run directory (auditors)",
    run: async (argv) => (await import("./verify.ts")).verifyCommand(argv),
  },
  source: {
    summary: "list or write back the program source files a run keeps",
    run: async (argv) => (await import("./source.ts")).sourceCommand(argv),
  },
  merge: {
    summary: "join finished shards (--shard K/N) of one protocol into one run",
    run: async (argv) => (await import("./merge.ts")).mergeCommand(argv),
  },
};

/** The top-level help text. */
export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  const lines = Object.entries(COMMANDS).map(([word, c]) => `  ${word.padEnd(width)}  ${c.summary}`);
  return `compaction-bench: how well do context-compaction methods keep what an LLM agent needs?

Usage: ${CLI} COMMAND [options]   (COMMAND --help for details)

Commands:
${lines.join("\n")}

Exit codes: 0 ok, 1 a check failed or a run's conditions failed for a provider or engine reason (the run
names them and the --retry-failed command), 2 bad input or usage, 3 internal error (a bug; set
COMPACTION_BENCH_DEBUG=1 for its stack trace), 130/143 a run stopped by SIGINT/SIGTERM (resumable).`;
}
