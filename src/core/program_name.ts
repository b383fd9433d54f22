/**
 * How a person starts this program in every hint: `./compaction-bench`, or `compaction-bench` when compiled.
 * @module
 */

/** The command a person types to run this program: `./compaction-bench` from a checkout, else the binary's name. */
export const CLI: string = Deno.build.standalone ? "compaction-bench" : "./compaction-bench";

/** `CLI` followed by `args`, as one command line to copy (for hints such as the `--resume` line). */
export function cliCommand(...args: string[]): string {
  return [CLI, ...args.map(shellWord)].join(" ");
}

/** `word` quoted for a POSIX shell when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Options a retry does not repeat: where the run goes, what it resumes, freezes or splits (refused with it). */
const NOT_REPEATED = new Set(["output", "o", "resume", "retry-failed", "frozen-run", "check-only", "shard"]);
const FLAGS = new Set(["check-only"]);

/**
 * The command line that retries the failed conditions of the finished run `run`: its start words without
 * `--output`, `--resume` and what a retry refuses, plus `--retry-failed RUN --output RUN-retried`.
 * @example
 * ```ts
 * retryCommandLine(["SUITE", "run", "--live", "--output", "runs/a"], "runs/a");
 * // "./compaction-bench SUITE run --live --retry-failed runs/a --output runs/a-retried"
 * ```
 */
export function retryCommandLine(command: readonly string[], run: string): string {
  const words: string[] = [];
  for (let i = 0; i < command.length; i++) {
    const word = command[i];
    const name = word.startsWith("--")
      ? word.slice(2).split("=")[0]
      : word.startsWith("-")
      ? word.slice(1)
      : null;
    if (name !== null && NOT_REPEATED.has(name)) {
      if (!word.includes("=") && !FLAGS.has(name)) i++;
      continue;
    }
    words.push(word);
  }
  return cliCommand(...words, "--retry-failed", run, "--output", `${run.replace(/\/+$/, "")}-retried`);
}
