/**
 * How a person starts this program, as every `--help`, error hint and printed next step spells it: the
 * repository's launcher `./compaction-bench` (it runs the pinned Deno with the program's permissions), or
 * `compaction-bench` for the single binary built by `deno task compile` (it answers to the same name).
 *
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
