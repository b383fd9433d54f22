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

/** The commands a run of which can be continued with `--resume DIR`. */
export const RESUMABLE_COMMANDS: readonly (readonly string[])[] = [
  ["hotpot", "collect"],
  ["hotpot", "run"],
  ["sweep", "run"],
];

/**
 * The command line that continues the unfinished run at `dir`, started as `recorded` (its header's command
 * words), or null when that command is not resumable (an engines run is started afresh).
 */
export function resumeCommandLine(recorded: readonly string[], dir: string): string | null {
  const words = RESUMABLE_COMMANDS.find((c) => c.every((word, i) => recorded[i] === word));
  return words ? cliCommand(...words, "--resume", dir) : null;
}

/** The runs being prepared or written in this process: a token → how the run was started and where. */
const active = new Map<symbol, { recorded: readonly string[]; dir: string | undefined }>();
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

/** What to do next about the run started as `recorded` at `dir`, as the signal finds it. */
export function interruptedLine(recorded: readonly string[], dir: string | undefined): string {
  if (dir === undefined || !hasJournal(dir)) {
    const where = dir === undefined ? "its run directory" : dir;
    return `stopped before ${where} was created: nothing was written, so there is nothing to --resume; run ` +
      "the same command again";
  }
  const resume = resumeCommandLine(recorded, dir);
  return resume === null
    ? `the run ${dir} is unfinished; it cannot be resumed, start it again`
    : `the run is unfinished; continue it with: ${resume}`;
}

function interrupted(signal: Deno.Signal): void {
  // One line per run: a command and its run register the same run, and "nothing was written" is only said
  // when no run of this process exists yet.
  const lines = [...new Set([...active.values()].map(({ recorded, dir }) => interruptedLine(recorded, dir)))];
  const written = lines.filter((line) => !line.startsWith("stopped before"));
  for (const line of written.length > 0 ? written : lines) {
    console.error(`\ninterrupted (${signal}): ${line}`);
  }
  Deno.exit(EXIT_CODES[signal] ?? 1);
}

/**
 * Registers a run started as `recorded` (its command words) that is, or will be, written at `dir` (the
 * `--output` or `--resume` directory; undefined for a default `runs/…` path not chosen yet) until the
 * returned function is called: a SIGINT or SIGTERM meanwhile prints what to do next (the exact `--resume`
 * line once the run exists, else that nothing was written) and ends the process. Called as soon as a command
 * is parsed, so a signal during its preparation (reading the corpus, loading the tokenizer) is answered too.
 * Nothing is registered in a worker.
 */
export function whileWriting(recorded: readonly string[], dir: string | undefined): () => void {
  if (!inMainThread() || Deno.build.os === "windows") return () => {};
  const token = Symbol(dir ?? "run");
  active.set(token, { recorded, dir });
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
