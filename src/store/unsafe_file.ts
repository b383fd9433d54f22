/**
 * What the readers of a possibly hostile run share (no file-system module: the scanning worker loads it).
 * @module
 */

/** The file cannot be read safely; `reason` says why in a few words. */
export class UnsafeFileError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "UnsafeFileError";
  }
}

export type EntryInfo =
  & Pick<
    Deno.FileInfo,
    | "isFile"
    | "isDirectory"
    | "isSymlink"
    | "isFifo"
    | "isCharDevice"
    | "isBlockDevice"
    | "isSocket"
    | "size"
    | "mode"
    | "nlink"
    | "ino"
    | "dev"
  >
  & Partial<Pick<Deno.FileInfo, "mtime" | "ctime">>;

/** What kind of file-system entry `info` describes, in words ("symlink", "FIFO", "directory", …). */
export function entryKind(info: EntryInfo): string {
  if (info.isSymlink) return "symlink";
  if (info.isFile) return "regular file";
  if (info.isDirectory) return "directory";
  if (info.isFifo) return "FIFO";
  if (info.isCharDevice) return "character device";
  if (info.isBlockDevice) return "block device";
  if (info.isSocket) return "socket";
  return "special file";
}

/** True for the errors `Deno` raises for file-system operations. */
export function isFsError(error: unknown): error is Error {
  return Object.values(Deno.errors).some((kind) => error instanceof kind);
}

/** A Node-style system error (`code` like `ELOOP`, `EACCES`), as `node:fs` raises them. */
export function isSystemError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === "string";
}

/** The {@link UnsafeFileError} for a failed file-system call. */
export function unreadable(error: Error): UnsafeFileError {
  const code = isSystemError(error) ? error.code : error.name;
  if (code === "ELOOP") return new UnsafeFileError("became a symlink while being checked");
  return new UnsafeFileError(`unreadable (${code})`);
}
