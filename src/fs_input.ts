/**
 * The one place where file-system errors of inputs and outputs become one-line {@link UsageError}s naming the
 * path, option and cause, and where an input is checked to be a regular file or a directory before it is opened.
 * @module
 */
import { dirname, resolve } from "node:path";
import { loneSurrogatePath } from "./core/lone_surrogates.ts";
import { UsageError } from "./errors.ts";
import { parseJson } from "./core/json_read.ts";

const MiB = 1024 * 1024;
/** The most bytes each kind of small JSON input may hold, checked from its size before it is read. */
export const INPUT_MAX_BYTES = { predictions: 64 * MiB, sweepCase: 1 * MiB, probes: 16 * MiB } as const;

/** Error codes (errno names, as Deno sets them in `error.code`) and what they mean for a path. */
const CAUSE_BY_CODE: Record<string, string> = {
  ENOENT: "not found",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory, expected a file",
  ENOTDIR: "a component of the path is not a directory",
  ELOOP: "symbolic link loop (too many levels of symbolic links)",
  EEXIST: "already exists",
  ENAMETOOLONG: "file name too long",
  ENXIO: "not a regular file (no such device or address)",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EIO: "input/output error",
  EBUSY: "device or resource busy",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  EINVAL: "invalid path",
};

/** Deno's error classes for file-system failures, by the cause they mean. */
const CAUSE_BY_CLASS: [new (...args: never[]) => Error, string][] = [
  [Deno.errors.NotFound, "not found"],
  [Deno.errors.PermissionDenied, "permission denied"],
  [Deno.errors.NotCapable, "not allowed by Deno's permissions (see --allow-read/--allow-write)"],
  [Deno.errors.IsADirectory, "is a directory, expected a file"],
  [Deno.errors.NotADirectory, "a component of the path is not a directory"],
  [Deno.errors.FilesystemLoop, "symbolic link loop (too many levels of symbolic links)"],
  [Deno.errors.AlreadyExists, "already exists"],
  [Deno.errors.Busy, "device or resource busy"],
  [Deno.errors.InvalidData, "invalid data"],
];

/** The one-line cause of a file-system error (`"not found"`), or `undefined` for any other error. */
export function fsErrorCause(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code in CAUSE_BY_CODE) return CAUSE_BY_CODE[code];
  for (const [errorClass, cause] of CAUSE_BY_CLASS) {
    if (error instanceof errorClass) return cause;
  }
  return undefined;
}

/** How a path is named in messages: `--corpus runs/x/corpus.json`, or the path alone. */
export function subjectOf(path: string, option?: string): string {
  return option === undefined ? path : `${option} ${path}`;
}

/**
 * Maps a file-system error about `path` to a {@link UsageError} `"<option> <path>: <cause>"`; any other error
 * is returned unchanged.
 * @example
 * ```ts
 * try { await Deno.readDir(dir); } catch (error) { throw inputError(error, dir, "--hermes-sessions"); }
 * ```
 */
export function inputError(error: unknown, path: string, option?: string): unknown {
  const cause = fsErrorCause(error);
  if (cause === undefined) return error;
  return new UsageError(`${subjectOf(path, option)}: ${cause}`, { cause: error });
}

/** What a file-info says a non-regular, non-directory path is. */
function kindOf(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  if (info.isSymlink) return "a symbolic link";
  return "not a regular file";
}

async function statMapped(path: string, option?: string): Promise<Deno.FileInfo> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    throw inputError(error, path, option);
  }
}

/** Checks that `path` is a regular file (following links) without opening it; returns its file info. */
export async function statInputFile(path: string, option?: string): Promise<Deno.FileInfo> {
  const info = await statMapped(path, option);
  if (info.isDirectory) throw new UsageError(`${subjectOf(path, option)}: is a directory, expected a file`);
  if (!info.isFile) {
    throw new UsageError(`${subjectOf(path, option)}: is ${kindOf(info)}, expected a regular file`);
  }
  return info;
}

/** Checks that `path` is a directory (following links); returns its file info. */
export async function statInputDirectory(path: string, option?: string): Promise<Deno.FileInfo> {
  const info = await statMapped(path, option);
  if (!info.isDirectory) {
    const what = info.isFile ? "a file" : kindOf(info);
    throw new UsageError(`${subjectOf(path, option)}: is ${what}, expected a directory`);
  }
  return info;
}

/** The info of an opened input, checked to be a regular file (the path may have been swapped since its stat). */
async function openedFile(file: Deno.FsFile, path: string, option?: string): Promise<Deno.FileInfo> {
  const opened = await file.stat();
  if (!opened.isFile) {
    throw new UsageError(`${subjectOf(path, option)}: is ${kindOf(opened)}, expected a regular file`);
  }
  return opened;
}

/** Reads a whole regular input file (at most `maxBytes`, default 4 GiB); errors are one-line {@link UsageError}s. */
export async function readInputFile(
  path: string,
  option?: string,
  maxBytes = 4 * 1024 ** 3,
): Promise<Uint8Array> {
  const info = await statInputFile(path, option);
  if (info.size > maxBytes) {
    throw new UsageError(`${subjectOf(path, option)}: ${info.size} bytes, more than the ${maxBytes} allowed`);
  }
  try {
    using file = await Deno.open(path, { read: true });
    const opened = await openedFile(file, path, option);
    const bytes = new Uint8Array(opened.size);
    let filled = 0;
    while (filled < bytes.length) {
      const n = await file.read(bytes.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return bytes.subarray(0, filled);
  } catch (error) {
    throw inputError(error, path, option);
  }
}

/** Reads an input file as {@link readInputFile} does, in chunks of one reused buffer handed to `chunk`. */
export async function readInputChunks(
  path: string,
  option: string | undefined,
  chunk: (bytes: Uint8Array) => void,
  chunkBytes = 1 << 20,
): Promise<number> {
  await statInputFile(path, option);
  try {
    using file = await Deno.open(path, { read: true });
    const opened = await openedFile(file, path, option);
    const buffer = new Uint8Array(Math.max(1, Math.min(chunkBytes, opened.size)));
    let total = 0;
    for (;;) {
      const n = await file.read(buffer);
      if (n === null) break;
      chunk(buffer.subarray(0, n));
      total += n;
    }
    return total;
  } catch (error) {
    throw inputError(error, path, option);
  }
}

/** The most bytes of a run folder's own JSON files read whole (a sparse file is refused unread). */
export const MAX_RUN_FILE_BYTES = 256 * 1024 * 1024;

/** The most bytes decoded into one string (V8's longest string is 2^29 - 24 UTF-16 units). */
export const MAX_TEXT_BYTES = 2 ** 29 - 24;

/** Reads an input file as strict UTF-8 text, at most `maxBytes` (default {@link MAX_TEXT_BYTES}). */
export async function readInputText(
  path: string,
  option?: string,
  maxBytes = MAX_TEXT_BYTES,
): Promise<string> {
  const bytes = await readInputFile(path, option, Math.min(maxBytes, MAX_TEXT_BYTES));
  return decodeUtf8(bytes, path, option);
}

/** Decodes bytes as strict UTF-8; invalid or too long text is a {@link UsageError} naming the file. */
export function decodeUtf8(bytes: Uint8Array, path: string, option?: string): string {
  if (bytes.length > MAX_TEXT_BYTES) {
    throw new UsageError(
      `${subjectOf(path, option)}: ${bytes.length} bytes, more than the ${MAX_TEXT_BYTES} one text may hold`,
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`${subjectOf(path, option)}: not valid UTF-8 text`);
    throw error;
  }
}

/**
 * Parses JSON text read from `path`; invalid JSON is a {@link UsageError} naming the file, worded by `notJson`
 * (default `not valid JSON (…)`); a lone surrogate is refused by name unless `keepLoneSurrogates` is false.
 */
export function parseInputJson(
  text: string,
  path: string,
  option?: string,
  { notJson = (detail: string) => `not valid JSON (${detail})`, keepLoneSurrogates = true } = {},
): unknown {
  let value: unknown;
  try {
    value = parseJson(text, { keepLoneSurrogates }); // a kept one is named below, as every loader names it
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new UsageError(`${subjectOf(path, option)}: ${notJson(error.message)}`);
    }
    throw error;
  }
  const lone = loneSurrogatePath(text, value);
  if (lone !== null) {
    throw new UsageError(`${subjectOf(path, option)}: ${lone}: a string with a lone surrogate`);
  }
  return value;
}

/** Reads and parses a JSON input file (regular file, UTF-8, JSON), every failure a one-line {@link UsageError}. */
export async function readInputJson(path: string, option?: string, maxBytes?: number): Promise<unknown> {
  return parseInputJson(await readInputText(path, option, maxBytes), path, option);
}

/** Checks, before anything is written, that a new output can be created at `path` (nothing there, parent a dir). */
export async function checkNewOutputPath(
  path: string,
  option?: string,
  { parentMustExist = false }: { parentMustExist?: boolean } = {},
): Promise<void> {
  try {
    await Deno.lstat(path);
    throw new UsageError(`${subjectOf(path, option)}: already exists; nothing was written`);
  } catch (error) {
    // Below a file (NotADirectory): the walk up names the file that is in the way.
    const absent = error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
    if (!absent) throw inputError(error, path, option);
  }
  let ancestor = dirname(resolve(path));
  let missing = false;
  for (;;) {
    try {
      const info = await Deno.stat(ancestor);
      if (!info.isDirectory) {
        throw new UsageError(`${subjectOf(path, option)}: its parent is not a directory (${ancestor})`);
      }
      break;
    } catch (error) {
      const absent = error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
      if (!absent || dirname(ancestor) === ancestor) throw inputError(error, path, option);
      missing = true;
      ancestor = dirname(ancestor);
    }
  }
  if (parentMustExist && missing) {
    throw new UsageError(`${subjectOf(path, option)}: folder ${dirname(path)} does not exist`);
  }
}

/** Maps a file-system error while writing `path` to a {@link UsageError} `"writing <path>: <cause>"`. */
export function writeError(error: unknown, path: string): unknown {
  const cause = fsErrorCause(error);
  if (cause === undefined || error instanceof UsageError) return error;
  return new UsageError(`writing ${path}: ${cause}`, { cause: error });
}
