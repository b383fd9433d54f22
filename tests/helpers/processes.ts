/**
 * Test helpers over live processes: outside processes may run in a PID namespace with a /proc of its own, so
 * they cannot tell their pid as this program sees it; they put a token in their command line instead, and the
 * test finds them by it in this host's /proc (tests run with --allow-all).
 *
 * @module
 */

/** The Python words a descendant execs to wait 60 s with `token` in its command line (found by {@link withToken}). */
export function sleepingWith(token: string): string {
  return `os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", ${
    JSON.stringify(token)
  }])`;
}

/** The live (not zombie) processes whose command line holds `token`. */
export function withToken(token: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (!cmdline.includes(token)) continue;
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      found.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
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
