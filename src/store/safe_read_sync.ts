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
    return hashOpen(fd, info.size, buffer);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens `path` without following a symlink or blocking, describes it by `fstat` of what was opened, and when
 * that is a regular file hashes it (at most its `fstat` size; a file that grows meanwhile is `unsafe`).
 * Undefined when it could not be opened or described: the caller then examines it with `lstat`.
 */
export function readRegularFileSync(
  path: string,
  buffer: Uint8Array,
): { info: EntryInfo; digest?: string; unsafe?: string } | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    if (isSystemError(error) || isFsError(error)) return undefined;
    throw error;
  }
  try {
    let info: EntryInfo;
    try {
      const st = fstatSync(fd);
      info = {
        isFile: st.isFile(),
        isDirectory: st.isDirectory(),
        isSymlink: false,
        isFifo: st.isFIFO(),
        isCharDevice: st.isCharacterDevice(),
        isBlockDevice: st.isBlockDevice(),
        isSocket: st.isSocket(),
        size: st.size,
        mode: st.mode,
        nlink: st.nlink,
        ino: st.ino,
        dev: st.dev,
        mtime: st.mtime,
        ctime: st.ctime,
      };
    } catch (error) {
      if (isSystemError(error) || isFsError(error)) return undefined;
      throw error;
    }
    if (!info.isFile) return { info };
    try {
      return { info, digest: hashOpen(fd, info.size, buffer) };
    } catch (error) {
      if (!(error instanceof UnsafeFileError)) throw error;
      return { info, unsafe: error.reason };
    }
  } finally {
    closeSync(fd);
  }
}

/** SHA-256 of the open regular file `fd`, reading at most `limit` bytes (one more shows growth). */
function hashOpen(fd: number, limit: number, buffer: Uint8Array): string {
  const hash = createHash("sha256");
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
}
