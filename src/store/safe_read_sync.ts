/**
 * Hashing a possibly hostile run's file with synchronous calls, for a thread that hashes many small files (a
 * scanning worker, ./dir_scan.ts): same checks and reasons as ./safe_read.ts, a direct system call each.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { type EntryInfo, isFsError, isSystemError, unreadable, UnsafeFileError } from "./unsafe_file.ts";

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * `hashRegularFile` (./safe_read.ts) with synchronous calls, for a thread that hashes many small files (a scanning
 * worker): open, `fstat`, read into `buffer` (reused; at least 64 KiB), close, each a direct system call with
 * no hand-off to a thread pool; a small file takes one read of its size plus one byte. Same checks and same
 * reasons as the async version.
 */
export function hashRegularFileSync(path: string, info: EntryInfo, buffer: Uint8Array): string {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    if (isSystemError(error) || isFsError(error)) throw unreadable(error);
    throw error;
  }
  try {
    let now;
    try {
      now = fstatSync(fd);
    } catch (error) {
      if (isSystemError(error) || isFsError(error)) throw unreadable(error);
      throw error;
    }
    if (!now.isFile()) throw new UnsafeFileError("became a special file while being checked");
    if (info.ino !== null && (now.ino !== info.ino || now.dev !== info.dev)) {
      throw new UnsafeFileError("was replaced while being checked");
    }
    const hash = createHash("sha256");
    const limit = info.size;
    let total = 0;
    while (total <= limit) {
      const want = Math.min(buffer.length, limit + 1 - total);
      let n: number;
      try {
        n = readSync(fd, buffer, 0, want, null);
      } catch (error) {
        if (isSystemError(error) || isFsError(error)) throw unreadable(error);
        throw error;
      }
      if (n === 0) return hash.digest("hex");
      hash.update(buffer.subarray(0, n));
      total += n;
      // A regular file reads short only at its end: no further call to see 0 bytes.
      if (n < want) return hash.digest("hex");
    }
    throw new UnsafeFileError(`grew beyond its size of ${limit} bytes while being read`);
  } finally {
    closeSync(fd);
  }
}
