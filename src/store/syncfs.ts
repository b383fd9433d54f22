/**
 * One call that makes every file of a file system durable: Linux `syncfs(2)`, reached through coreutils'
 * `sync -f PATH` (Deno has no syncfs of its own). The blob store uses it for a large batch of blobs, where it
 * replaces one fsync per blob: the kernel then writes each dirty inode-table and directory block once and
 * flushes the disk's cache once, where each fsync writes its file's inode block and its parent directory and
 * flushes the cache on its own (ext4), and each fsync is a round trip to a blocking thread.
 *
 * It is used only where it can be trusted and is cheap to ask: on Linux, with permission to run `sync`
 * (asked with `Deno.permissions.querySync`, never prompted for). A failure to run it, or an error it reports,
 * makes the caller fall back to an fsync per file (which reports its own file's errors exactly), and this
 * process does not try it again.
 *
 * @module
 */

/** Whether `sync -f` may be tried in this process: unknown until asked, false once it failed. */
let usable: boolean | undefined;

/** Whether {@link syncFileSystem} may be tried (Linux, `sync` allowed to run, not failed before). */
export function syncFileSystemUsable(): boolean {
  if (usable === undefined) {
    usable = Deno.build.os === "linux" &&
      Deno.permissions.querySync({ name: "run", command: "sync" }).state === "granted";
  }
  return usable;
}

/**
 * Makes every file of the file system holding `path` durable (`sync -f path`). Resolves to false, and disables
 * itself for this process, when `sync` cannot be run or reports an error: the caller then syncs file by file.
 */
export async function syncFileSystem(path: string): Promise<boolean> {
  if (!syncFileSystemUsable()) return false;
  try {
    const { success } = await new Deno.Command("sync", {
      args: ["-f", path],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    if (success) return true;
  } catch (error) {
    // Not installed, not permitted, out of processes: whatever stops it, an fsync per file is always right.
    if (!(error instanceof Error)) throw error;
  }
  usable = false;
  return false;
}

/** Forgets what {@link syncFileSystem} learnt (for tests). */
export function resetSyncFileSystem(value?: boolean): void {
  usable = value;
}
