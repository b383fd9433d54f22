/**
 * `compaction-bench hotpot collect|run|score|generate|predictions`: the dispatcher.
 * @module
 */
import { UsageError } from "../../errors.ts";
import { CLI } from "../../core/program_name.ts";
import { didYouMean } from "../option_suggest.ts";

export const HOTPOT_SUBCOMMANDS = ["collect", "run", "predictions", "score", "generate"] as const;

/** Dispatches `hotpot collect|run|predictions|score|generate`. */
export async function hotpotCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  // Each subcommand's modules are imported when it runs: a process loads only what its command uses.
  if (sub === "collect") return await (await import("./collect.ts")).hotpotCollectCli(rest);
  if (sub === "run") return await (await import("./run.ts")).hotpotRun(rest);
  if (sub === "score") return await (await import("./score.ts")).hotpotScoreCommand(rest);
  if (sub === "generate") return await (await import("./generate.ts")).hotpotGenerateCommand(rest);
  if (sub === "predictions") return await (await import("./predictions.ts")).hotpotPredictionsCommand(rest);
  if (sub === undefined || sub === "--help" || sub === "-h") {
    console.log(
      `${CLI} hotpot collect|run|score|generate|predictions [options]   (see '${CLI} hotpot SUBCOMMAND --help')`,
    );
    return sub === undefined ? 2 : 0;
  }
  throw new UsageError(
    `hotpot: unknown subcommand '${sub}'${
      didYouMean(sub, HOTPOT_SUBCOMMANDS)
    } (expected collect, run, predictions, score or generate)`,
  );
}
