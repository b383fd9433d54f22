/**
 * What a person sees when they stop a run (Ctrl-C, SIGTERM) or find one unfinished: one line naming the exact
 * command that continues it (`./compaction-bench hotpot run --resume DIR`). While a run is being written it is
 * registered here; the first SIGINT or SIGTERM prints the line of every registered run and ends the process
 * with 130 (SIGINT) or 143 (SIGTERM), as the default action would. The journal is append-only and fsynced, so
 * the run is resumable from where the signal found it.
 *
 * @module
 */
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

/** The runs being written in this process: path → the line that continues it. */
const active = new Map<string, string>();
const SIGNALS: readonly Deno.Signal[] = ["SIGINT", "SIGTERM"];
const EXIT_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
const listeners = new Map<Deno.Signal, () => void>();

/** Whether this code runs in the main thread (a worker cannot own the process's signals). */
function inMainThread(): boolean {
  return typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === "undefined";
}

function interrupted(signal: Deno.Signal): void {
  for (const line of active.values()) console.error(`\ninterrupted (${signal}): ${line}`);
  Deno.exit(EXIT_CODES[signal] ?? 1);
}

/**
 * Registers the run at `dir` (started as `recorded`) until the returned function is called: a signal meanwhile
 * prints how to continue it. Nothing is registered for a run that cannot be resumed, or in a worker.
 */
export function whileWriting(recorded: readonly string[], dir: string): () => void {
  const resume = resumeCommandLine(recorded, dir);
  const line = resume === null
    ? `the run ${dir} is unfinished; it cannot be resumed, start it again`
    : `the run is unfinished; continue it with: ${resume}`;
  if (!inMainThread() || Deno.build.os === "windows") return () => {};
  active.set(dir, line);
  if (listeners.size === 0) {
    for (const signal of SIGNALS) {
      const listener = () => interrupted(signal);
      Deno.addSignalListener(signal, listener);
      listeners.set(signal, listener);
    }
  }
  return () => {
    active.delete(dir);
    if (active.size > 0) return;
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    listeners.clear();
  };
}
