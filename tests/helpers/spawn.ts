/**
 * Running the project's scripts in a real `deno` subprocess, as the tests' end-to-end checks do.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The project root (where main.ts lives). */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/** What a finished subprocess produced. */
export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `deno run -A <script> ...args` from the project root and collects its output. `env` adds variables for
 * this child only: test files run in parallel in one process, so a test never sets `Deno.env` for a child.
 */
export async function runDeno(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Finished> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", script, ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { ...env, NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

/** Runs the real CLI: `deno run -A main.ts ...args` (`env`: variables for this child only). */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return runDeno("main.ts", args, env);
}

/**
 * How long a test polls for something a subprocess does (a journal line, a lock) before it gives up: a guard
 * against a hang, not a time limit. Generous, since the machine may be loaded many times over its cores.
 */
export const HANG_GUARD_MS = 300_000;
