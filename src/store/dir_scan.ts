/**
 * The checker's walk of a run, one directory at a time, with synchronous calls: list it, `lstat` every entry
 * and hash the regular files with a blob name while at hand. A large run's blob folders are shared by a
 * {@link ScanPool} of workers and the calling thread, so every core reads and hashes.
 *
 * @module
 */
import { hashRegularFileSync } from "./safe_read_sync.ts";
import { type EntryInfo, isFsError, UnsafeFileError } from "./unsafe_file.ts";

/** A blob file's name in its prefix folder: the hash's last 62 hex digits. */
export const BLOB_NAME = /^[0-9a-f]{62}$/;

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
  /**
   * The sound blobs of a blob folder, kept out of `entries` (most of a run): regular files of mode 0444 with
   * one link whose bytes hash to their name; the names (62 characters each) in order, and their sizes.
   */
  sound?: { names: string; sizes: number[] };
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
    mtime: info.mtime,
    ctime: info.ctime,
  };
}

/** The read buffer of this thread's scans (1 MiB; large files are read in pieces). */
let sharedBuffer: Uint8Array | undefined;

/**
 * Scans the directory `dir`: lists it, `lstat`s each entry and, when `hashBlobs`, hashes every regular file
 * whose name is a blob name (at most the size `lstat` gave). File-system failures are recorded; anything else
 * is thrown.
 */
export function scanDirectorySync(dir: string, hashBlobs: boolean): DirScan {
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) names.push(entry.name);
  } catch (error) {
    if (!isFsError(error)) throw error;
    return { listError: error.name, entries: [] };
  }
  names.sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
  const buffer = sharedBuffer ??= new Uint8Array(1 << 20);
  const prefix = dir.slice(-2);
  const sound = { names: "", sizes: [] as number[] };
  const entries: ScannedEntry[] = [];
  for (const name of names) {
    const entry = scanEntry(dir, name, hashBlobs, buffer);
    const { info, digest } = entry;
    if (
      digest !== undefined && info!.nlink === 1 && (info!.mode! & 0o7777) === 0o444 &&
      digest.endsWith(name) && digest.startsWith(prefix)
    ) {
      sound.names += name;
      sound.sizes.push(info!.size);
    } else entries.push(entry);
  }
  return hashBlobs ? { entries, sound } : { entries };
}

function scanEntry(dir: string, name: string, hashBlobs: boolean, buffer: Uint8Array): ScannedEntry {
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
    return { name, info, digest: hashRegularFileSync(path, info, buffer, false) };
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw error;
    return { name, info, unsafe: error.reason };
  }
}

/** The one message a scanning worker gets: the blob folders to scan, and the shared count of those taken. */
export interface ScanRequest {
  dirs: string[];
  /** `taken[0]`: how many of `dirs` some thread has taken (raised with `Atomics.add`). */
  taken: Int32Array;
}

/** A scanning worker's answer for one folder. */
export type ScanReply = { index: number; scan: DirScan } | { index: number; failure: string };

/**
 * Blob folders scanned by workers and the calling thread together, each taking the next folder from one shared
 * count (a `SharedArrayBuffer`); the calling thread {@link help}s once its own work is done.
 */
export class ScanPool {
  /** Each folder's scan, in the order given. */
  readonly results: Promise<DirScan>[];
  readonly #workers: Worker[] = [];
  readonly #dirs: string[];
  readonly #taken: Int32Array;
  readonly #settle: { resolve: (scan: DirScan) => void; reject: (error: Error) => void }[] = [];
  readonly #open = new Set<number>();

  /** Starts `size` workers (they inherit this process's permissions) on the blob folders `dirs`. */
  constructor(size: number, dirs: string[]) {
    this.#dirs = dirs;
    this.#taken = new Int32Array(new SharedArrayBuffer(4));
    this.results = dirs.map((_, index) =>
      new Promise<DirScan>((resolve, reject) => {
        this.#settle[index] = { resolve, reject };
        this.#open.add(index);
      })
    );
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL("./dir_scan_worker.ts", import.meta.url).href, { type: "module" });
      worker.onmessage = (event: MessageEvent<ScanReply>) => this.#reply(event.data);
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        this.#lost(worker);
      };
      const request: ScanRequest = { dirs, taken: this.#taken };
      worker.postMessage(request);
      this.#workers.push(worker);
    }
  }

  /** Scans, in this thread, every folder no worker has taken yet. */
  help(): void {
    for (let i = Atomics.add(this.#taken, 0, 1); i < this.#dirs.length; i = Atomics.add(this.#taken, 0, 1)) {
      this.#scanHere(i);
    }
  }

  #scanHere(index: number): void {
    this.#reply(scanReply(this.#dirs, index));
  }

  #reply(reply: ScanReply): void {
    if (!this.#open.delete(reply.index)) return;
    const settle = this.#settle[reply.index];
    if ("scan" in reply) settle.resolve(reply.scan);
    else settle.reject(new Error(`a folder scan failed: ${reply.failure}`));
  }

  /** A worker that could not start or died: once none is left, this thread scans what is not answered. */
  #lost(worker: Worker): void {
    worker.terminate();
    this.#workers.splice(this.#workers.indexOf(worker), 1);
    if (this.#workers.length > 0) return;
    Atomics.store(this.#taken, 0, this.#dirs.length);
    for (const index of [...this.#open]) this.#scanHere(index);
  }

  /** Stops the workers. */
  close(): void {
    for (const worker of this.#workers) worker.terminate();
    for (const index of this.#open) this.#settle[index].reject(new Error("the scanning pool was closed"));
    this.#open.clear();
  }
}

/** The scan of `dirs[index]`, or the failure's text. */
function scanReply(dirs: string[], index: number): ScanReply {
  try {
    return { index, scan: scanDirectorySync(dirs[index], true) };
  } catch (error) {
    return { index, failure: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
}

/** Serves one {@link ScanRequest} in a worker: takes folders until none is left, answering each. */
export function serveScanRequest(request: ScanRequest, reply: (message: ScanReply) => void): void {
  const { dirs, taken } = request;
  for (let i = Atomics.add(taken, 0, 1); i < dirs.length; i = Atomics.add(taken, 0, 1)) {
    reply(scanReply(dirs, i));
  }
}
