/**
 * What a person sees when they stop a run (Ctrl-C, SIGTERM) or find one unfinished: one line naming the exact
 * command that continues it (`./compaction-bench hotpot run --resume DIR`). While a run is being written it is
 * registered here; the first SIGINT or SIGTERM prints the line of every registered run and ends the process
 * with 130 (SIGINT) or 143 (SIGTERM), as the default action would. The journal is append-only and fsynced, so
 * the run is resumable from where the signal found it.
 *
 * @module
 */
import { join } from "node:path";
import { cliCommand } from "../core/program_name.ts";
import type { Suite } from "../suites/suite.ts";

/** What continuing a run takes of its suite: its command words, and whether its runs resume (`Suite.resumable`). */
export type ResumableSuite = Pick<Suite, "command" | "resumable">;

/**
 * The command line that continues the unfinished run at `dir` of `suite`, or null when the suite's runs are not
 * resumable (an engines run is started afresh) or the suite is unknown.
 */
export function resumeCommandLine(suite: ResumableSuite | undefined, dir: string): string | null {
  return suite?.resumable === true ? cliCommand(...suite.command, "--resume", dir) : null;
}

/** The runs being prepared or written in this process: a token → the suite of the run and where it is. */
const active = new Map<symbol, { suite: ResumableSuite | undefined; dir: string | undefined }>();
const SIGNALS: readonly Deno.Signal[] = ["SIGINT", "SIGTERM"];
const EXIT_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
const listeners = new Map<Deno.Signal, () => void>();

/** Whether this code runs in the main thread (a worker cannot own the process's signals). */
function inMainThread(): boolean {
  return typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === "undefined";
}

function hasJournal(dir: string): boolean {
  try {
    return Deno.statSync(join(dir, "journal.jsonl")).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return false;
    throw error;
  }
}

/** What to do next about the run of `suite` at `dir`, as the signal finds it. */
export function interruptedLine(suite: ResumableSuite | undefined, dir: string | undefined): string {
  if (dir === undefined || !hasJournal(dir)) {
    const where = dir === undefined ? "its run directory" : dir;
    return `stopped before ${where} was created: nothing was written, so there is nothing to --resume; run ` +
      "the same command again";
  }
  const resume = resumeCommandLine(suite, dir);
  return resume === null
    ? `the run ${dir} is unfinished; it cannot be resumed, start it again`
    : `the run is unfinished; continue it with: ${resume}`;
}

function interrupted(signal: Deno.Signal): void {
  // One line per run: a command and its run register the same run, and "nothing was written" is only said
  // when no run of this process exists yet.
  const lines = [...new Set([...active.values()].map(({ suite, dir }) => interruptedLine(suite, dir)))];
  const written = lines.filter((line) => !line.startsWith("stopped before"));
  for (const line of written.length > 0 ? written : lines) {
    console.error(`\ninterrupted (${signal}): ${line}`);
  }
  Deno.exit(EXIT_CODES[signal] ?? 1);
}

/**
 * Registers a run of `suite` that is, or will be, written at `dir` (the
 * `--output` or `--resume` directory; undefined for a default `runs/…` path not chosen yet) until the
 * returned function is called: a SIGINT or SIGTERM meanwhile prints what to do next (the exact `--resume`
 * line once the run exists, else that nothing was written) and ends the process. Called as soon as a command
 * is parsed, so a signal during its preparation (reading the corpus, loading the tokenizer) is answered too.
 * Nothing is registered in a worker.
 */
export function whileWriting(suite: ResumableSuite | undefined, dir: string | undefined): () => void {
  if (!inMainThread() || Deno.build.os === "windows") return () => {};
  const token = Symbol(dir ?? "run");
  active.set(token, { suite, dir });
  if (listeners.size === 0) {
    for (const signal of SIGNALS) {
      const listener = () => interrupted(signal);
      Deno.addSignalListener(signal, listener);
      listeners.set(signal, listener);
    }
  }
  return () => {
    active.delete(token);
    if (active.size > 0) return;
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    listeners.clear();
  };
}
