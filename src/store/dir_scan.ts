/**
 * The checker's walk of a run, one directory at a time: list it, `lstat` every entry (symlinks not followed)
 * and hash the regular files with a blob name while they are at hand, all with synchronous calls (a direct
 * system call each, no hand-off to a thread pool). A run's blob folders (`objects/sha256/XX`) are shared out
 * to a {@link ScanPool} of workers, so both cores read and hash; a small run is scanned in the calling thread.
 *
 * @module
 */
import { hashRegularFileSync } from "./safe_read_sync.ts";
import { type EntryInfo, isFsError, UnsafeFileError } from "./unsafe_file.ts";

/** A blob file's name inside its prefix folder: the hash's last 62 hex digits. */
const BLOB_NAME = /^[0-9a-f]{62}$/;

/** One entry of a scanned directory. */
export interface ScannedEntry {
  name: string;
  /** What `lstat` saw; absent when it failed (`error`). */
  info?: EntryInfo;
  /** The `Deno.errors` name of a failed `lstat`. */
  error?: string;
  /** SHA-256 of a regular file with a blob name (when asked for). */
  digest?: string;
  /** Why that file could not be hashed ({@link UnsafeFileError}'s reason). */
  unsafe?: string;
}

/** A scanned directory: its entries sorted by name, or why it could not be listed. */
export interface DirScan {
  /** The `Deno.errors` name of a failed listing. */
  listError?: string;
  entries: ScannedEntry[];
}

function pick(info: Deno.FileInfo): EntryInfo {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    isFifo: info.isFifo,
    isCharDevice: info.isCharDevice,
    isBlockDevice: info.isBlockDevice,
    isSocket: info.isSocket,
    size: info.size,
    mode: info.mode,
    nlink: info.nlink,
    ino: info.ino,
    dev: info.dev,
  };
}

/** The read buffer of this thread's scans (1 MiB; large files are read in pieces). */
let sharedBuffer: Uint8Array | undefined;

/**
 * Scans the directory `dir`: lists it, `lstat`s each entry and, when `hashBlobs`, hashes every regular file
 * whose name is a blob name (reading at most the size `lstat` gave, see {@link hashRegularFileSync}).
 * File-system failures are recorded in the result; anything else is thrown.
 */
export function scanDirectorySync(dir: string, hashBlobs: boolean): DirScan {
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) names.push(entry.name);
  } catch (error) {
    if (!isFsError(error)) throw error;
    return { listError: error.name, entries: [] };
  }
  names.sort();
  const buffer = sharedBuffer ??= new Uint8Array(1 << 20);
  const entries = names.map((name): ScannedEntry => {
    const path = `${dir}/${name}`;
    let info: EntryInfo;
    try {
      info = pick(Deno.lstatSync(path));
    } catch (error) {
      if (!isFsError(error)) throw error;
      return { name, error: error.name };
    }
    if (!hashBlobs || !info.isFile || !BLOB_NAME.test(name)) return { name, info };
    try {
      return { name, info, digest: hashRegularFileSync(path, info, buffer) };
    } catch (error) {
      if (!(error instanceof UnsafeFileError)) throw error;
      return { name, info, unsafe: error.reason };
    }
  });
  return { entries };
}

/** A job sent to a scanning worker. */
export interface ScanRequest {
  id: number;
  dir: string;
  hashBlobs: boolean;
}

/** A scanning worker's answer. */
export type ScanReply = { id: number; scan: DirScan } | { id: number; failure: string };

interface Pending {
  resolve: (scan: DirScan) => void;
  reject: (error: Error) => void;
}

/**
 * Workers that run {@link scanDirectorySync}. Jobs are posted at once, in turn to each worker, so a worker
 * never waits for the calling thread to hand it the next (that thread has its own work meanwhile). A
 * worker's failure (a bug, not a file's state) rejects the jobs not yet answered.
 */
export class ScanPool {
  readonly #workers: Worker[] = [];
  readonly #pending = new Map<number, Pending>();
  #next = 0;

  /** Starts `size` workers (they inherit this process's permissions). */
  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL("./dir_scan_worker.ts", import.meta.url).href, { type: "module" });
      worker.onmessage = (event: MessageEvent<ScanReply>) => this.#reply(event.data);
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        this.#failAll(new Error(`a scanning worker failed: ${event.message}`));
      };
      this.#workers.push(worker);
    }
  }

  /** Scans `dir` in a worker (see {@link scanDirectorySync}). */
  scan(dir: string, hashBlobs: boolean): Promise<DirScan> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      const request: ScanRequest = { id, dir, hashBlobs };
      this.#workers[id % this.#workers.length].postMessage(request);
    });
  }

  #reply(reply: ScanReply): void {
    const pending = this.#pending.get(reply.id);
    this.#pending.delete(reply.id);
    if (!pending) return;
    if ("scan" in reply) pending.resolve(reply.scan);
    else pending.reject(new Error(`a scanning worker failed: ${reply.failure}`));
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  /** Stops the workers. */
  close(): void {
    for (const worker of this.#workers) worker.terminate();
    this.#failAll(new Error("the scanning pool was closed"));
  }
}
