/**
 * Test helpers over live processes: outside processes may run in a PID namespace with a /proc of its own, so
 * they cannot tell their pid as this program sees it; they put a token in their command line instead, and the
 * test finds them by it in the host's process list (`ps`).
 *
 * @module
 */

/** The Python words a descendant execs to wait 60 s with `token` in its command line (found by {@link withToken}). */
export function sleepingWith(token: string): string {
  return `os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", ${
    JSON.stringify(token)
  }])`;
}

/**
 * The live (not zombie) processes whose command line holds `token`, as `ps` lists them: the test task runs
 * without `--allow-all`, under which Deno refuses to read `/proc` itself, while `--allow-run` runs `ps`.
 */
export function withToken(token: string): number[] {
  const listing = new Deno.Command("ps", {
    args: ["-eo", "pid=,stat=,args="],
    stdout: "piped",
    stderr: "null",
  })
    .outputSync();
  const found: number[] = [];
  for (const line of new TextDecoder().decode(listing.stdout).split("\n")) {
    const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (match === null || !match[3].includes(token) || match[2].startsWith("Z")) continue;
    if (match[3].startsWith("ps ")) continue;
    found.push(Number(match[1]));
  }
  return found;
}

/** Waits up to 2 s for every process holding `token` to end; the ones still alive. */
export async function survivors(token: string): Promise<number[]> {
  for (let i = 0; i < 40 && withToken(token).length > 0; i++) {
    await new Promise((done) => setTimeout(done, 50));
  }
  return withToken(token);
}
