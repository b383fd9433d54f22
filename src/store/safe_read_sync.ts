/**
 * Reading a possibly hostile run's files with synchronous calls (a direct system call each, no thread pool):
 * the checks and reasons of ./safe_read.ts, for a thread that reads many small files (./dir_scan.ts).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { type EntryInfo, isFsError, isSystemError, unreadable, UnsafeFileError } from "./unsafe_file.ts";

// Never follows a symlink nor blocks on a FIFO swapped in after `lstat`.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Runs a file-system call, its failure an {@link UnsafeFileError}. */
function fsCall<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (isSystemError(error) || isFsError(error)) throw unreadable(error);
    throw error;
  }
}

/**
 * Opens the regular file `path` that `lstat` described as `info` and passes it to `body`. With `checked`, an
 * `fstat` of the open file confirms it is that file (a blob skips it: 14,000 `fstat`s cost more than its read).
 */
function withOpen<T>(path: string, info: EntryInfo, checked: boolean, body: (fd: number) => T): T {
  const fd = fsCall(() => openSync(path, OPEN_FLAGS));
  try {
    if (checked) {
      const now = fsCall(() => fstatSync(fd));
      if (!now.isFile()) throw new UnsafeFileError("became a special file while being checked");
      if (info.ino !== null && (now.ino !== info.ino || now.dev !== info.dev)) {
        throw new UnsafeFileError("was replaced while being checked");
      }
    }
    return body(fd);
  } finally {
    closeSync(fd);
  }
}

/** Reads the open `fd` into `buffer` piece by piece, at most `limit` bytes (one more shows growth). */
function readUpTo(fd: number, limit: number, buffer: Uint8Array, sink: (chunk: Uint8Array) => void): void {
  let total = 0;
  while (total <= limit) {
    const want = Math.min(buffer.length, limit + 1 - total);
    const n = fsCall(() => readSync(fd, buffer, 0, want, null));
    if (n === 0) return;
    sink(buffer.subarray(0, n));
    total += n;
    // A regular file reads short only at its end: no further call to see 0 bytes.
    if (n < want) return;
  }
  throw new UnsafeFileError(`grew beyond its size of ${limit} bytes while being read`);
}

/**
 * SHA-256 (hex) of the regular file `path` that `lstat` described as `info`, read through `buffer` (reused);
 * `checked`: see {@link withOpen}. Throws {@link UnsafeFileError} when it cannot be read safely.
 */
export function hashRegularFileSync(
  path: string,
  info: EntryInfo,
  buffer: Uint8Array,
  checked = true,
): string {
  return withOpen(path, info, checked, (fd) => {
    const hash = createHash("sha256");
    readUpTo(fd, info.size, buffer, (chunk) => hash.update(chunk));
    return hash.digest("hex");
  });
}

/** The bytes of the regular file `path` (`info` from `lstat`), refused when larger than `cap` bytes. */
export function readRegularFileSync(path: string, info: EntryInfo, cap: number): Uint8Array {
  if (info.size > cap) throw new UnsafeFileError(`too large (${info.size} bytes; at most ${cap} are read)`);
  // `out` holds the file and one byte more: its first read takes all of it.
  const out = new Uint8Array(info.size + 1);
  let at = 0;
  withOpen(path, info, true, (fd) => readUpTo(fd, info.size, out, (chunk) => at += chunk.length));
  return out.subarray(0, at);
}
