/**
 * The peak resident memory of a process tree, sampled from /proc (Linux only): what the hostile-input
 * benchmarks (`hostile_memory.ts`, `sandbox_attacks.ts`) measure of the CLI process and its descendants.
 *
 * @module
 */

/** How often the tree's memory is sampled. */
const SAMPLE_MS = 20;

/** Resident bytes of `pid` and every descendant, from /proc. */
export async function treeRss(pid: number): Promise<number> {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(entry.name), Number(fields[1]));
      rss.set(Number(entry.name), Number(fields[21]) * 4096);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  let total = 0;
  for (const [child] of parents) {
    for (let p: number | undefined = child; p !== undefined && p > 1; p = parents.get(p)) {
      if (p === pid) {
        total += rss.get(child) ?? 0;
        break;
      }
    }
  }
  return total;
}

/** Waits for `child`'s output, sampling its tree's resident memory every 20 ms: the output and the peak. */
export async function outputWithPeak(
  child: Deno.ChildProcess,
): Promise<{ output: Deno.CommandOutput; peak: number }> {
  let peak = 0;
  let done = false;
  const status = child.output().finally(() => done = true);
  while (!done) {
    peak = Math.max(peak, await treeRss(child.pid));
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
  return { output: await status, peak };
}
