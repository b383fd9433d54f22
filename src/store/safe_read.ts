/**
 * Reading a possibly hostile run's regular files: no symlink followed, no FIFO blocking, `fstat`-checked, and
 * never more than their size; errors become {@link UnsafeFileError}s.
 * @module
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { type EntryInfo, isFsError, isSystemError, unreadable, UnsafeFileError } from "./unsafe_file.ts";

export { type EntryInfo, entryKind, isFsError, UnsafeFileError } from "./unsafe_file.ts";

const CHUNK = 1 << 20;

/** Opens with `O_NOFOLLOW | O_NONBLOCK`, then checks with `fstat` that it is the regular file `lstat` saw. */
async function openChecked(path: string, expected: EntryInfo): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (isSystemError(error) || isFsError(error)) throw unreadable(error);
    throw error;
  }
  try {
    const now = await handle.stat();
    if (!now.isFile()) throw new UnsafeFileError("became a special file while being checked");
    if (expected.ino !== null && (now.ino !== expected.ino || now.dev !== expected.dev)) {
      throw new UnsafeFileError("was replaced while being checked");
    }
    return handle;
  } catch (error) {
    await handle.close();
    if (isSystemError(error) || isFsError(error)) throw unreadable(error);
    throw error;
  }
}

async function readUpTo(
  handle: FileHandle,
  limit: number,
  sink: (chunk: Uint8Array) => void,
): Promise<number> {
  const buffer = new Uint8Array(Math.min(CHUNK, limit + 1));
  let total = 0;
  while (total <= limit) {
    let n: number;
    try {
      ({ bytesRead: n } = await handle.read(buffer, 0, Math.min(buffer.length, limit + 1 - total), null));
    } catch (error) {
      if (isSystemError(error) || isFsError(error)) throw unreadable(error);
      throw error;
    }
    if (n === 0) return total;
    sink(buffer.subarray(0, n));
    total += n;
  }
  throw new UnsafeFileError(`grew beyond its size of ${limit} bytes while being read`);
}

/** SHA-256 (hex) of the regular file `path` that `lstat` described as `info`; throws {@link UnsafeFileError}. */
export async function hashRegularFile(path: string, info: EntryInfo): Promise<string> {
  const handle = await openChecked(path, info);
  try {
    const hash = createHash("sha256");
    await readUpTo(handle, info.size, (chunk) => hash.update(chunk));
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}

/** The bytes of the regular file `path` (as `info`), refused past `cap`; throws {@link UnsafeFileError}. */
export async function readRegularFile(path: string, info: EntryInfo, cap: number): Promise<Uint8Array> {
  if (info.size > cap) throw new UnsafeFileError(`too large (${info.size} bytes; at most ${cap} are read)`);
  const handle = await openChecked(path, info);
  try {
    const out = new Uint8Array(info.size);
    let at = 0;
    await readUpTo(handle, info.size, (chunk) => {
      if (at + chunk.length <= out.length) out.set(chunk, at);
      at += chunk.length;
    });
    return at === out.length ? out : out.subarray(0, at);
  } finally {
    await handle.close();
  }
}
