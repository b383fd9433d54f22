/**
 * The writer's lock of a run directory: `RUN/.lock` under an exclusive `flock`, holding the holder's pid, host
 * and start; the OS frees a dead process's lock, so the next writer takes it over atomically.
 * @module
 */
import { hostname } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "../errors.ts";

import { LOCK_FILE } from "./run_files.ts";
import { parseJsonBytes } from "../core/json_read.ts";

const LockContentSchema = z.object({ pid: z.number().int(), host: z.string(), started: z.string() });
/** What a lock file says about its holder. */
export type LockHolder = z.infer<typeof LockContentSchema>;

const MAX_LOCK_BYTES = 4096;
const ATTEMPTS = 8;

async function readHolder(file: Deno.FsFile): Promise<LockHolder | undefined> {
  const buffer = new Uint8Array(MAX_LOCK_BYTES);
  let length = 0;
  await file.seek(0, Deno.SeekMode.Start);
  while (length < buffer.length) {
    const n = await file.read(buffer.subarray(length));
    if (n === null) break;
    length += n;
  }
  try {
    const parsed = LockContentSchema.safeParse(parseJsonBytes(buffer.subarray(0, length)));
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

async function samePath(file: Deno.FsFile, path: string): Promise<boolean> {
  const held = await file.stat();
  try {
    const named = await Deno.lstat(path);
    return named.ino === held.ino && named.dev === held.dev;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** An acquired writer's lock. */
export class RunLock {
  /** The holder this lock was taken over from (a process that died while writing), if any. */
  readonly takenOverFrom?: LockHolder;
  #path: string;
  #file: Deno.FsFile | undefined;

  private constructor(path: string, file: Deno.FsFile, takenOverFrom?: LockHolder) {
    this.#path = path;
    this.#file = file;
    this.takenOverFrom = takenOverFrom;
  }

  /** Takes the lock of run directory `dir` (named `what`), or throws a {@link UsageError} naming the holder. */
  static async acquire(dir: string, what = dir): Promise<RunLock> {
    const path = join(dir, LOCK_FILE);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o644 });
      } catch (error) {
        if (error instanceof Deno.errors.PermissionDenied) {
          throw new UsageError(`${what}: cannot create its lock ${path} (permission denied)`);
        }
        throw error;
      }
      try {
        if (!(await file.tryLock(true))) {
          const holder = await readHolder(file);
          const who = holder
            ? `process ${holder.pid} on ${holder.host} (since ${holder.started})`
            : "another process";
          throw new UsageError(
            `${what} is being written by ${who}; lock ${path}. Wait for it to finish or stop it, then resume.`,
          );
        }
        if (!(await samePath(file, path))) {
          file.close(); // the holder released (and removed) it just now: try again with the new file
          continue;
        }
        const previous = await readHolder(file);
        const me: LockHolder = { pid: Deno.pid, host: hostname(), started: new Date().toISOString() };
        const bytes = new TextEncoder().encode(JSON.stringify(me) + "\n");
        await file.truncate(0);
        await file.seek(0, Deno.SeekMode.Start);
        let written = 0;
        while (written < bytes.length) written += await file.write(bytes.subarray(written));
        await file.sync();
        return new RunLock(path, file, previous);
      } catch (error) {
        try {
          file.close();
        } catch (closeError) {
          if (!(closeError instanceof Deno.errors.BadResource)) throw closeError;
        }
        throw error;
      }
    }
    throw new UsageError(`${what}: could not take its lock ${path} (it kept changing hands)`);
  }

  get path(): string {
    return this.#path;
  }

  movedTo(dir: string): void {
    this.#path = join(dir, LOCK_FILE);
  }

  /** Removes the lock file (if it still names this lock), then closes it; releasing twice does nothing. */
  async release(): Promise<void> {
    const file = this.#file;
    if (!file) return;
    this.#file = undefined;
    try {
      if (await samePath(file, this.#path)) await Deno.remove(this.#path);
    } finally {
      file.close();
    }
  }
}
