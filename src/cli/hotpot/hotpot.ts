/**
 * `compaction-bench hotpot collect|run|score|generate|predictions`: the dispatcher.
 * @module
 */
import { CLI } from "../../core/program_name.ts";
import { dispatch } from "../args.ts";

/** Dispatches `hotpot collect|run|predictions|score|generate`. */
export function hotpotCommand(argv: string[]): Promise<number> {
  // Each subcommand's modules are imported when it runs: a process loads only what its command uses.
  return dispatch(
    "hotpot",
    argv,
    {
      collect: async (rest) => await (await import("./collect.ts")).hotpotCollectCli(rest),
      run: async (rest) => await (await import("./run.ts")).hotpotRun(rest),
      predictions: async (rest) => await (await import("./predictions.ts")).hotpotPredictionsCommand(rest),
      score: async (rest) => await (await import("./score.ts")).hotpotScoreCommand(rest),
      generate: async (rest) => await (await import("./generate.ts")).hotpotGenerateCommand(rest),
    },
    `${CLI} hotpot collect|run|score|generate|predictions [options]   (see '${CLI} hotpot SUBCOMMAND --help')`,
  );
}
