/**
 * The write-once, content-addressed blob store: a blob is `objects/sha256/<2 hex>/<62 hex>`, named by the
 * SHA-256 of its bytes, written read-only through a temp file and a rename (a kill leaves no partial blob).
 * Durability is per group: {@link BlobStore.sync} fsyncs every blob written since its last call, and a run
 * calls it before the journal line that names them, so a journaled blob is on disk.
 *
 * @module
 */
import { join } from "node:path";
import { writeError } from "../fs_input.ts";
import type { z } from "zod";
import { canonicalJson } from "./canonical.ts";
import { isSha256Hex, sha256Hex } from "./hash.ts";
import { entryKind, hashRegularFile, isFsError, readRegularFile, UnsafeFileError } from "./safe_read.ts";
import { readRegularFileSync } from "./safe_read_sync.ts";
import { parseCanonicalJson, parseJson } from "../core/json_read.ts";

/** A blob altered, missing, not a regular file or not named by a SHA-256: a damaged run folder (exit 2). */
export class BlobIntegrityError extends Error {
  /** Creates the error for blob `hash` (`path`: its file, named in the message when given). */
  constructor(readonly hash: string, readonly reason: string, readonly path?: string) {
    super(`${path ?? `blob ${hash}`}: ${reason}`);
    this.name = "BlobIntegrityError";
  }
}

/** The largest blob read back whole (a run's sources); a larger file under a blob name is refused unread. */
export const MAX_BLOB_READ_BYTES = 1024 * 1024 * 1024;

/** Blobs larger than this are hashed while streamed before being read whole. */
const HASH_FIRST_BYTES = 64 * 1024 * 1024;
/** Blobs up to this size are read with synchronous calls (a thread-pool round trip per call costs more). */
const SYNC_READ_BYTES = 1024 * 1024;

/** How many blob fsyncs run at once through the thread pool: the file system then commits them together. */
export const SYNC_CONCURRENCY = 32;

/** An fsync made in place that takes longer than this (ms) is slow: a disk's, not a tmpfs's (a few µs). */
export const INLINE_SYNC_SLOW_MS = 0.1;
/** After this many slow fsyncs in a row, a store fsyncs through the thread pool (one slow one: preempted). */
export const INLINE_SYNC_SLOW_RUN = 3;

/** At most this many bytes of written blobs are held in memory for the next stages to read back. */
export const HELD_BYTES_LIMIT = 8 * 1024 * 1024;

/** At most this many descriptors of written, not yet synced blobs are kept open for their fsync. */
export const HELD_DESCRIPTORS_LIMIT = 256;

/** A blob written and not yet synced: its path, and the descriptor it was written through when still open. */
interface Unsynced {
  path: string;
  file?: Deno.FsFile;
}

/**
 * Where a store's fsyncs run. In place while they are fast: each through the thread pool costs two thread
 * hand-offs, more CPU than a tmpfs's fsync itself. Once {@link INLINE_SYNC_SLOW_RUN} in a row are slow (a
 * disk), through the thread pool for good, {@link SYNC_CONCURRENCY} at a time, so the event loop never waits
 * on a disk and the file system commits them together.
 *
 * @example
 * ```ts
 * const place = new SyncPlace();
 * place.took(5); // one slow fsync (a preempted one): still in place
 * place.took(0.01);
 * place.inPlace; // true
 * ```
 */
export class SyncPlace {
  inPlace = true;
  #slow = 0;

  /** Notes how long an fsync made in place took (ms). */
  took(ms: number): void {
    this.#slow = ms > INLINE_SYNC_SLOW_MS ? this.#slow + 1 : 0;
    if (this.#slow >= INLINE_SYNC_SLOW_RUN) this.inPlace = false;
  }
}

/** fsyncs one file through its still-open descriptor or else opened read-only; closes it. */
function fsyncFile(blob: Unsynced, place: SyncPlace): void | Promise<void> {
  const file = blob.file ?? Deno.openSync(blob.path, { read: true });
  if (!place.inPlace) return file.sync().finally(() => file.close());
  try {
    const started = performance.now();
    file.syncSync();
    place.took(performance.now() - started);
  } finally {
    file.close();
  }
}

/**
 * fsyncs each file (see {@link SyncPlace}); every file is tried and every descriptor closed, then the first
 * failure is thrown.
 */
async function fsyncAll(blobs: Unsynced[], place: SyncPlace): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const drain = async () => {
    while (next < blobs.length) {
      try {
        await fsyncFile(blobs[next++], place);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  while (place.inPlace && next < blobs.length) {
    try {
      fsyncFile(blobs[next++], place);
    } catch (error) {
      failure ??= { error };
    }
  }
  const loops: Promise<void>[] = [];
  for (let i = 0; i < Math.min(SYNC_CONCURRENCY, blobs.length - next); i++) loops.push(drain());
  await Promise.all(loops);
  if (failure !== undefined) throw failure.error;
}

/** How {@link BlobStore.put} may treat the bytes it is given. */
export interface PutOptions {
  /** The caller hands the arrays over and never changes them: held for reading back without a copy. */
  owned?: boolean;
  /** False for a blob nothing reads back during the run (a call record): not held in memory. */
  hold?: false;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The longest text encoded into the shared buffer (UTF-16 units: up to 3 bytes each); longer ones get their own. */
const SHARED_TEXT_LIMIT = 1024 * 1024;
let shared = new Uint8Array(64 * 1024);

/** `text`'s UTF-8 bytes: a view of a buffer the next call overwrites (a long text: an array of its own). */
function encodeShared(text: string): Uint8Array {
  if (text.length > SHARED_TEXT_LIMIT) return encoder.encode(text);
  if (text.length * 3 > shared.length) {
    shared = new Uint8Array(Math.min(SHARED_TEXT_LIMIT * 3, text.length * 6));
  }
  return shared.subarray(0, encoder.encodeInto(text, shared).written);
}

/** Relative path of a blob inside a run directory. */
export function blobRelativePath(hash: string): string {
  return `objects/sha256/${hash.slice(0, 2)}/${hash.slice(2)}`;
}

/**
 * Reads and writes blobs under one run directory.
 *
 * @example
 * ```ts ignore
 * const blobs = new BlobStore("runs/x");
 * const hash = await blobs.putText("hello"); // sha256 of the bytes, written once
 * new TextDecoder().decode(await blobs.get(hash)); // "hello"
 * ```
 */
export class BlobStore {
  readonly #objects: string;
  readonly #tmpDir: string;
  readonly #known = new Set<string>();
  #tmpCounter = 0;
  readonly #dirs = new Set<string>();
  /** Blobs written but not yet fsynced, and the syncs under way. */
  #unsynced: Unsynced[] = [];
  #heldDescriptors = 0;
  readonly #syncing = new Set<Promise<void>>();
  readonly #syncPlace = new SyncPlace();
  /** True when every blob under the root is one this store knows (a run it created): no existence probe. */
  #fresh = false;
  /** Writes under way, by hash: the same content stored again meanwhile waits for that write. */
  readonly #writing = new Map<string, Promise<string>>();
  /** Written blobs held for reading back (their text, or bytes) with their size in bytes, oldest first. */
  readonly #held = new Map<string, { data: Uint8Array | string; size: number }>();
  #heldBytes = 0;
  /** Blobs stored as canonical JSON text by this store: read back without the duplicate-key scan. */
  readonly #canonical = new Set<string>();
  #umaskStripsRead: boolean | undefined;

  /** A store rooted at a run directory (blobs go to `<root>/objects/`). */
  constructor(root: string) {
    this.#objects = join(root, "objects", "sha256");
    this.#tmpDir = join(root, "objects", "tmp");
  }

  /** The directory holds exactly `known` and only this store writes to it: puts skip the existence check. */
  markFresh(known: Iterable<string>): void {
    for (const hash of known) this.#known.add(hash);
    this.#fresh = true;
  }

  /** Every blob under the root when this store knows them all ({@link markFresh}), else undefined. */
  knownBlobs(): ReadonlySet<string> | undefined {
    return this.#fresh ? this.#known : undefined;
  }

  /** The absolute path of blob `hash`. */
  pathOf(hash: string): string {
    if (!isSha256Hex(hash)) throw new BlobIntegrityError(hash, "not a SHA-256 hex name");
    return `${this.#objects}/${hash.slice(0, 2)}/${hash.slice(2)}`;
  }

  /** Stores bytes (in chunks, never joined) once and returns their SHA-256; existing content is checked. */
  put(data: Uint8Array | readonly Uint8Array[], options: PutOptions = {}): Promise<string> {
    const chunks = data instanceof Uint8Array ? [data] : data;
    return this.#put(sha256Hex(chunks), chunks, options);
  }

  /** Stores `text`'s UTF-8 bytes, encoded into a buffer every put shares; held as the string itself. */
  #putString(text: string, options: Pick<PutOptions, "hold">): Promise<string> {
    const bytes = encodeShared(text);
    // A fresh store writes the shared bytes before this returns; one that first looks for the blob copies them.
    return this.#put(
      sha256Hex(bytes),
      [this.#fresh ? bytes : bytes.slice()],
      { ...options, owned: true },
      text,
    );
  }

  #put(hash: string, chunks: readonly Uint8Array[], options: PutOptions, text?: string): Promise<string> {
    if (this.#known.has(hash)) return Promise.resolve(hash);
    const under = this.#writing.get(hash);
    if (under !== undefined) return under;
    if (this.#fresh) {
      try {
        this.#write(hash, chunks, options, text);
      } catch (error) {
        return Promise.reject(error);
      }
      return Promise.resolve(hash);
    }
    const writing = this.#exists(hash).then((exists) => {
      if (exists) this.#known.add(hash);
      else this.#write(hash, chunks, options, text);
      return hash;
    }).finally(() => this.#writing.delete(hash));
    this.#writing.set(hash, writing);
    return writing;
  }

  /** Whether blob `hash` is already stored (checked against its name; a damaged one is refused). */
  async #exists(hash: string): Promise<boolean> {
    try {
      await this.#read(hash);
      return true;
    } catch (error) {
      if (!(error instanceof BlobIntegrityError)) throw error;
      if (error.reason.startsWith("altered")) {
        throw new BlobIntegrityError(hash, "existing file does not match its name");
      }
      if (error.reason !== "missing") throw error;
      return false;
    }
  }

  /** Writes blob `hash` (temp file, rename; fsynced by the next {@link sync}) and holds it for reading back. */
  #write(hash: string, chunks: readonly Uint8Array[], options: PutOptions, text?: string): void {
    const path = this.pathOf(hash);
    const tmp = `${this.#tmpDir}/${hash}.${Deno.pid}.${this.#tmpCounter++}`;
    try {
      this.#mkdir(this.#tmpDir);
      this.#mkdir(`${this.#objects}/${hash.slice(0, 2)}`);
      // Created read-only: the descriptor opened here may still write, nothing can later.
      const file = Deno.openSync(tmp, { write: true, createNew: true, mode: 0o444 });
      let held = false;
      try {
        for (const bytes of chunks) {
          let written = 0;
          while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
        }
        // A umask that strips read bits would leave the blob unreadable to others.
        this.#umaskStripsRead ??= (Deno.umask() & 0o444) !== 0;
        if (this.#umaskStripsRead) Deno.chmodSync(tmp, 0o444);
        Deno.renameSync(tmp, path);
        // The descriptor still names the file after the rename: its fsync needs no new open.
        held = this.#fresh && this.#heldDescriptors < HELD_DESCRIPTORS_LIMIT;
        if (held) {
          this.#heldDescriptors++;
          this.#unsynced.push({ path, file });
        } else this.#unsynced.push({ path });
        this.#known.add(hash);
      } finally {
        if (!held) file.close();
      }
    } catch (error) {
      throw writeError(error, tmp); // a full disk names the blob being written
    }
    if (options.hold !== false) this.#hold(hash, chunks, options.owned === true, text);
  }

  /**
   * Holds a written blob for reading back (its text when given, else its bytes: a copy unless owned and
   * whole), dropping the oldest past the limit.
   */
  #hold(hash: string, chunks: readonly Uint8Array[], owned: boolean, text?: string): void {
    let size = 0;
    for (const bytes of chunks) size += bytes.length;
    if (size > HELD_BYTES_LIMIT / 8) return;
    let held: Uint8Array | string;
    if (text !== undefined) held = text;
    else if (owned && chunks.length === 1) held = chunks[0];
    else {
      held = new Uint8Array(size);
      let at = 0;
      for (const bytes of chunks) {
        held.set(bytes, at);
        at += bytes.length;
      }
    }
    this.#held.set(hash, { data: held, size });
    this.#heldBytes += size;
    for (const [old, { size }] of this.#held) {
      if (this.#heldBytes <= HELD_BYTES_LIMIT) break;
      this.#held.delete(old);
      this.#heldBytes -= size;
    }
  }

  /** Makes every blob written so far durable; resolves once those and the syncs under way are done. */
  async sync(): Promise<void> {
    const blobs = this.#unsynced;
    this.#unsynced = [];
    this.#heldDescriptors = 0;
    if (blobs.length > 0) {
      const done = fsyncAll(blobs, this.#syncPlace).finally(() => this.#syncing.delete(done));
      this.#syncing.add(done);
    }
    await Promise.all([...this.#syncing]);
  }

  /** Closes the descriptors kept for unsynced blobs (run sealed or abandoned); a later sync reopens them. */
  closeFiles(): void {
    for (const blob of this.#unsynced) {
      blob.file?.close();
      delete blob.file;
    }
    this.#heldDescriptors = 0;
  }

  #mkdir(dir: string): void {
    if (this.#dirs.has(dir)) return;
    Deno.mkdirSync(dir, { recursive: true });
    this.#dirs.add(dir);
  }

  /** Stores a string's UTF-8 bytes. */
  putText(text: string): Promise<string> {
    return this.#putString(text, {});
  }

  /** Stores the RFC 8785 canonical JSON of an I-JSON value (`hold: false`: see {@link PutOptions.hold}). */
  putJson(value: unknown, options: Pick<PutOptions, "hold"> = {}): Promise<string> {
    return this.putCanonical(canonicalJson(value), options);
  }

  /** Stores `text`, the {@link canonicalJson} of a value (so {@link getJson} reads it back without a scan). */
  async putCanonical(text: string, options: Pick<PutOptions, "hold"> = {}): Promise<string> {
    const hash = await this.#putString(text, options);
    this.#canonical.add(hash);
    return hash;
  }

  /** True when blob `hash` exists (not checked). */
  async has(hash: string): Promise<boolean> {
    if (this.#known.has(hash)) return true;
    try {
      await Deno.stat(this.pathOf(hash));
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  /** Reads blob `hash`, checked against its name (a held blob: a copy of the bytes it was hashed from). */
  async get(hash: string): Promise<Uint8Array> {
    const held = this.#held.get(hash)?.data;
    if (held === undefined) return await this.#read(hash);
    return typeof held === "string" ? encoder.encode(held) : held.slice();
  }

  /** Reads blob `hash` from its file as `verify` does: a regular file only, bounded, checked against its name. */
  async #read(hash: string): Promise<Uint8Array> {
    const path = this.pathOf(hash);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) throw new BlobIntegrityError(hash, "missing", path);
      if (isFsError(error)) throw new BlobIntegrityError(hash, `unreadable (${error.name})`, path);
      throw error;
    }
    if (!info.isFile) throw new BlobIntegrityError(hash, `is a ${entryKind(info)}, not a regular file`, path);
    if (info.size > MAX_BLOB_READ_BYTES) {
      throw new BlobIntegrityError(
        hash,
        `too large (${info.size} bytes; at most ${MAX_BLOB_READ_BYTES})`,
        path,
      );
    }
    try {
      if (info.size > HASH_FIRST_BYTES && await hashRegularFile(path, info) !== hash) {
        throw new BlobIntegrityError(hash, "altered (content does not match its name)", path);
      }
      // A small blob in direct system calls (its writes are too); a large one in the thread pool.
      const bytes = info.size <= SYNC_READ_BYTES
        ? readRegularFileSync(path, info, MAX_BLOB_READ_BYTES)
        : await readRegularFile(path, info, MAX_BLOB_READ_BYTES);
      if (sha256Hex(bytes) !== hash) {
        throw new BlobIntegrityError(hash, "altered (content does not match its name)", path);
      }
      return bytes;
    } catch (error) {
      if (error instanceof UnsafeFileError) throw new BlobIntegrityError(hash, error.reason, path);
      throw error;
    }
  }

  /** Reads a blob as UTF-8 text. */
  async getText(hash: string): Promise<string> {
    const held = this.#held.get(hash)?.data;
    return typeof held === "string" ? held : decoder.decode(held ?? await this.#read(hash));
  }

  /** Reads a JSON blob, optionally validating it with a zod schema. */
  async getJson<T = unknown>(hash: string, schema?: z.ZodType<T>): Promise<T> {
    const text = await this.getText(hash);
    const value = this.#canonical.has(hash) ? parseCanonicalJson(text) : parseJson(text);
    if (!schema) return value as T;
    const result = schema.safeParse(value);
    if (!result.success) {
      throw new BlobIntegrityError(
        hash,
        `unexpected content: ${result.error.issues[0]?.message ?? "invalid"}`,
      );
    }
    return result.data;
  }

  /** Copies blob `hash` from another store into this one (reused nodes stay self-contained). */
  async copyFrom(other: BlobStore, hash: string): Promise<void> {
    if (await this.has(hash)) return;
    const stored = await this.put(await other.get(hash), { owned: true }); // `get` gave a copy
    if (stored !== hash) throw new BlobIntegrityError(hash, "copy changed its content");
  }
}
