/**
 * What a person sees when they stop a run (SIGINT, SIGTERM) or find one unfinished: the exact `--resume` line;
 * the first signal prints it for every run being written and exits 130/143.
 * @module
 */
import { join } from "node:path";
import { cliCommand } from "../core/program_name.ts";
import type { Suite } from "../suites/suite.ts";

/** What continuing a run takes of its suite: its command words, and whether its runs resume. */
export type ResumableSuite = Pick<Suite, "command" | "resumable">;

/** The command line that continues the unfinished run at `dir` of `suite`, or null (not resumable, unknown). */
export function resumeCommandLine(suite: ResumableSuite | undefined, dir: string): string | null {
  return suite?.resumable === true ? cliCommand(...suite.command, "--resume", dir) : null;
}

const active = new Map<symbol, { suite: ResumableSuite | undefined; dir: string | undefined }>();
const SIGNALS: readonly Deno.Signal[] = ["SIGINT", "SIGTERM"];
const EXIT_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
const listeners = new Map<Deno.Signal, () => void>();

function hasJournal(dir: string): boolean {
  try {
    return Deno.statSync(join(dir, "journal.jsonl")).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return false;
    throw error;
  }
}

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
  // One line per run; "nothing was written" only when no run of this process exists yet.
  const lines = [...new Set([...active.values()].map(({ suite, dir }) => interruptedLine(suite, dir)))];
  const written = lines.filter((line) => !line.startsWith("stopped before"));
  for (const line of written.length > 0 ? written : lines) {
    console.error(`\ninterrupted (${signal}): ${line}`);
  }
  Deno.exit(EXIT_CODES[signal] ?? 1);
}

/** Registers a run of `suite` at `dir` until the returned function is called (a signal then prints its hint). */
export function whileWriting(suite: ResumableSuite | undefined, dir: string | undefined): () => void {
  // A worker cannot own the process's signals: only the main thread registers.
  const worker = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
  if (worker || Deno.build.os === "windows") return () => {};
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
