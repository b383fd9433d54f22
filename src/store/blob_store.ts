/**
 * The write-once, content-addressed blob store. A blob lives at `objects/sha256/<2 hex>/<62 hex>` under the run
 * directory and its name is the SHA-256 of its bytes. Writing goes through a temp file in `objects/tmp/` and a
 * rename, so a killed process never leaves a partial file under a blob name; blobs are created read-only.
 *
 * Durability is batched: {@link BlobStore.sync} fsyncs every blob written since the last call, many at once,
 * and a run calls it before each journal line that names them (see `run_dir.ts`). So a journaled blob is on
 * disk, and a blob damaged by a power cut before its sync is named by no durable line (a resume removes it).
 *
 * Writing (temp file, write, rename) uses synchronous calls: blobs are small and a thread round trip costs
 * more; only fsyncs run asynchronously. In a run's own store ({@link BlobStore.markFresh}) a blob's descriptor
 * stays open until its fsync (up to {@link HELD_DESCRIPTORS_LIMIT}). The same content stored twice at once is
 * written once. Written blobs are also held in memory (up to {@link HELD_BYTES_LIMIT}, oldest dropped first):
 * the very bytes that were hashed, so the next stage reads them without a file read ({@link BlobStore.get}
 * hands out a copy); blobs nothing reads back during a run ({@link PutOptions.hold}) are not held.
 *
 * @module
 */
import { join } from "node:path";
import { writeError } from "../fs_input.ts";
import type { z } from "zod";
import { canonicalBytes } from "./canonical.ts";
import { isSha256Hex, sha256Hex } from "./hash.ts";
import { entryKind, hashRegularFile, isFsError, readRegularFile, UnsafeFileError } from "./safe_read.ts";
import { parseJson } from "../core/json_read.ts";

/**
 * A blob's bytes do not match its name, its file is missing or not a regular file, or a name is not a SHA-256:
 * a damaged run folder (exit 2, the path named), never a bug.
 */
export class BlobIntegrityError extends Error {
  /** Creates the error for blob `hash` (`path`: its file, named in the message when given). */
  constructor(readonly hash: string, readonly reason: string, readonly path?: string) {
    super(`${path ?? `blob ${hash}`}: ${reason}`);
    this.name = "BlobIntegrityError";
  }
}

/**
 * The largest blob read back whole. A run's largest blobs are its sources (a dataset, a corpus); a file past
 * this under a blob's name (a sparse file swapped in) is refused before anything is read.
 */
export const MAX_BLOB_READ_BYTES = 1024 * 1024 * 1024;

/** Blobs larger than this are hashed as they are streamed before being read whole (a damaged one costs no memory). */
const HASH_FIRST_BYTES = 64 * 1024 * 1024;

/** How many blob fsyncs run at once: the file system then commits them together. */
export const SYNC_CONCURRENCY = 32;

/**
 * At most this many bytes of the blobs a store wrote are held in memory for reading back: enough for what the
 * next stage of the same question reads, small enough to keep a long run's memory flat.
 */
export const HELD_BYTES_LIMIT = 8 * 1024 * 1024;

/** At most this many descriptors of written, not yet synced blobs are kept open for their fsync. */
export const HELD_DESCRIPTORS_LIMIT = 256;

/** A blob written and not yet synced: its path, and the descriptor it was written through when still open. */
interface Unsynced {
  path: string;
  file?: Deno.FsFile;
}

/**
 * fsyncs each file, {@link SYNC_CONCURRENCY} at a time, through the descriptor it was written by when that is
 * still open (then closed), else opened read-only (Linux flushes its data all the same). A fixed set of loops
 * takes the files in order (no closure or promise per file besides its fsync's); every file is tried and every
 * descriptor closed even when one fails, and then the first failure is thrown.
 */
async function fsyncAll(blobs: Unsynced[]): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const drain = async () => {
    while (next < blobs.length) {
      const blob = blobs[next++];
      try {
        const file = blob.file ?? Deno.openSync(blob.path, { read: true });
        try {
          await file.sync();
        } finally {
          file.close();
        }
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const loops: Promise<void>[] = [];
  for (let i = 0; i < Math.min(SYNC_CONCURRENCY, blobs.length); i++) loops.push(drain());
  await Promise.all(loops);
  if (failure !== undefined) throw failure.error;
}

/** How {@link BlobStore.put} may treat the bytes it is given. */
export interface PutOptions {
  /**
   * The caller hands the arrays over and never changes them (bytes it just encoded): the store holds them for
   * reading back as they are, without a copy.
   */
  owned?: boolean;
  /**
   * False for a blob nothing reads back while the run works (a call record): it is not held in memory, so it
   * takes no room from the blobs the next stages read.
   */
  hold?: false;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
  /** `<root>/objects/sha256` and `<root>/objects/tmp`, joined once: a blob's paths are built from them. */
  readonly #objects: string;
  readonly #tmpDir: string;
  readonly #known = new Set<string>();
  #tmpCounter = 0;
  /** Directories this store has made (or found), so each is made once. */
  readonly #dirs = new Set<string>();
  /** Blobs written but not yet fsynced, and the syncs under way. */
  #unsynced: Unsynced[] = [];
  /** How many of {@link #unsynced} hold an open descriptor. */
  #heldDescriptors = 0;
  readonly #syncing = new Set<Promise<void>>();
  /** True when every blob under the root is one this store knows (a run it created): no existence probe. */
  #fresh = false;
  /** Writes under way, by hash: the same content stored again meanwhile waits for that write. */
  readonly #writing = new Map<string, Promise<string>>();
  /** Blobs written by this store, held for reading back (insertion order: the oldest first), and their bytes. */
  readonly #held = new Map<string, Uint8Array>();
  #heldBytes = 0;
  /** Whether the process's umask strips read bits (asked once). */
  #umaskStripsRead: boolean | undefined;

  /** A store rooted at a run directory (blobs go to `<root>/objects/`). */
  constructor(root: string) {
    this.#objects = join(root, "objects", "sha256");
    this.#tmpDir = join(root, "objects", "tmp");
  }

  /**
   * Declares that the directory holds exactly the blobs `known` and that only this store writes blobs to it
   * (a run just created): storing a blob then skips the read that checks for an existing copy.
   */
  markFresh(known: Iterable<string>): void {
    for (const hash of known) this.#known.add(hash);
    this.#fresh = true;
  }

  /**
   * Every blob under the root, when this store knows them all (a run it created, see {@link markFresh}):
   * those it was given and those it wrote. Undefined for any other store (the directory must be listed).
   */
  knownBlobs(): ReadonlySet<string> | undefined {
    return this.#fresh ? this.#known : undefined;
  }

  /** The absolute path of blob `hash`. */
  pathOf(hash: string): string {
    if (!isSha256Hex(hash)) throw new BlobIntegrityError(hash, "not a SHA-256 hex name");
    // What `join(root, blobRelativePath(hash))` gives: the hex parts need no normalizing.
    return `${this.#objects}/${hash.slice(0, 2)}/${hash.slice(2)}`;
  }

  /**
   * Stores bytes once and returns their SHA-256; storing existing content checks it and writes nothing. The
   * bytes may come in chunks (a large output built in parts), written in order and never joined.
   */
  put(data: Uint8Array | readonly Uint8Array[], options: PutOptions = {}): Promise<string> {
    const chunks = data instanceof Uint8Array ? [data] : data;
    const hash = sha256Hex(chunks);
    if (this.#known.has(hash)) return Promise.resolve(hash);
    const under = this.#writing.get(hash);
    if (under !== undefined) return under;
    const writing = this.#write(hash, chunks, options).finally(() => this.#writing.delete(hash));
    this.#writing.set(hash, writing);
    return writing;
  }

  async #write(hash: string, chunks: readonly Uint8Array[], options: PutOptions): Promise<string> {
    const path = this.pathOf(hash);
    if (!this.#fresh) {
      try {
        await this.#read(hash);
        this.#known.add(hash);
        return hash;
      } catch (error) {
        if (!(error instanceof BlobIntegrityError)) throw error;
        if (error.reason.startsWith("altered")) {
          throw new BlobIntegrityError(hash, "existing file does not match its name");
        }
        if (error.reason !== "missing") throw error;
      }
    }
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
        // A umask that strips read bits would leave the blob unreadable to others: set the mode outright then.
        this.#umaskStripsRead ??= (Deno.umask() & 0o444) !== 0;
        if (this.#umaskStripsRead) Deno.chmodSync(tmp, 0o444);
        Deno.renameSync(tmp, path);
        // The descriptor still names the blob's file after the rename: its fsync needs no new open.
        held = this.#fresh && this.#heldDescriptors < HELD_DESCRIPTORS_LIMIT;
        if (held) {
          this.#heldDescriptors++;
          this.#unsynced.push({ path, file });
        } else this.#unsynced.push({ path });
        // Complete under its name from here on: known (so a sealed fresh run can tell it from the others).
        this.#known.add(hash);
      } finally {
        if (!held) file.close();
      }
    } catch (error) {
      throw writeError(error, tmp); // a full disk names the blob being written
    }
    if (options.hold !== false) this.#hold(hash, chunks, options.owned === true);
    return hash;
  }

  /**
   * Holds a written blob's bytes for reading back, dropping the oldest held past {@link HELD_BYTES_LIMIT}: the
   * caller's array itself when it is `owned` and whole, else a copy (the caller's buffers may change).
   */
  #hold(hash: string, chunks: readonly Uint8Array[], owned: boolean): void {
    let size = 0;
    for (const bytes of chunks) size += bytes.length;
    if (size > HELD_BYTES_LIMIT / 8) return;
    let held: Uint8Array;
    if (owned && chunks.length === 1) held = chunks[0];
    else {
      held = new Uint8Array(size);
      let at = 0;
      for (const bytes of chunks) {
        held.set(bytes, at);
        at += bytes.length;
      }
    }
    this.#held.set(hash, held);
    this.#heldBytes += size;
    for (const [old, bytes] of this.#held) {
      if (this.#heldBytes <= HELD_BYTES_LIMIT) break;
      this.#held.delete(old);
      this.#heldBytes -= bytes.length;
    }
  }

  /**
   * Makes every blob this store has written so far durable (fsync, {@link SYNC_CONCURRENCY} at a time); resolves
   * once those and any syncs already under way are done.
   */
  async sync(): Promise<void> {
    const blobs = this.#unsynced;
    this.#unsynced = [];
    this.#heldDescriptors = 0;
    if (blobs.length > 0) {
      const done = fsyncAll(blobs).finally(() => this.#syncing.delete(done));
      this.#syncing.add(done);
    }
    await Promise.all([...this.#syncing]);
  }

  /**
   * Closes the descriptors kept for blobs not synced yet (a run sealed or abandoned: a blob no journal line
   * names is removed, or removed by a resume); a later {@link sync} opens them again.
   */
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
    return this.put(encoder.encode(text), { owned: true });
  }

  /** Stores the RFC 8785 canonical JSON of an I-JSON value (`hold: false`: see {@link PutOptions.hold}). */
  putJson(value: unknown, options: Pick<PutOptions, "hold"> = {}): Promise<string> {
    return this.put(canonicalBytes(value), { ...options, owned: true });
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

  /**
   * Reads blob `hash` and checks its bytes against its name (a blob this store wrote and still holds: a copy
   * of the bytes it hashed to that name).
   */
  async get(hash: string): Promise<Uint8Array> {
    const held = this.#held.get(hash);
    return held !== undefined ? held.slice() : await this.#read(hash);
  }

  /**
   * Reads blob `hash` from its file and checks its bytes against its name, the way `verify` opens a run's files:
   * a regular file only (a symlink, FIFO or socket is refused without opening it, nothing can block), at most
   * {@link MAX_BLOB_READ_BYTES}, a large one hashed as it streams before it is read whole.
   */
  async #read(hash: string): Promise<Uint8Array> {
    const path = this.pathOf(hash);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
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
      const bytes = await readRegularFile(path, info, MAX_BLOB_READ_BYTES);
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
    const held = this.#held.get(hash);
    return decoder.decode(held ?? await this.#read(hash)); // decoding a held array leaves it as it is
  }

  /** Reads a JSON blob, optionally validating it with a zod schema. */
  async getJson<T = unknown>(hash: string, schema?: z.ZodType<T>): Promise<T> {
    const value = parseJson(await this.getText(hash));
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

  /** Copies blob `hash` from another store into this one (used to make reused nodes self-contained). */
  async copyFrom(other: BlobStore, hash: string): Promise<void> {
    if (await this.has(hash)) return;
    const stored = await this.put(await other.get(hash), { owned: true }); // `get` gave a copy
    if (stored !== hash) throw new BlobIntegrityError(hash, "copy changed its content");
  }
}
