/**
 * The write-once, content-addressed blob store. A blob lives at `objects/sha256/<2 hex>/<62 hex>` under the run
 * directory and its name is the SHA-256 of its bytes. Writing goes through a temp file in `objects/tmp/` and a
 * rename, so a killed process never leaves a partial file under a blob name; blobs are created read-only.
 *
 * Durability is batched: {@link BlobStore.sync} fsyncs every blob written since the last call, many at once,
 * and a run calls it before each journal line that names them (see `run_dir.ts`). So a journaled blob is on
 * disk, and a blob damaged by a power cut before its sync is named by no durable line (a resume removes it).
 *
 * @module
 */
import { join } from "node:path";
import { writeError } from "../fs_input.ts";
import pLimit from "p-limit";
import type { z } from "zod";
import { canonicalBytes } from "./canonical.ts";
import { isSha256Hex, sha256Hex } from "./hash.ts";

/** A blob's bytes do not match its name, or a name is not a SHA-256. */
export class BlobIntegrityError extends Error {
  /** Creates the error for blob `hash`. */
  constructor(readonly hash: string, message: string) {
    super(`blob ${hash}: ${message}`);
    this.name = "BlobIntegrityError";
  }
}

/** How many blob fsyncs run at once: the file system then commits them together. */
export const SYNC_CONCURRENCY = 32;

/** fsyncs each file, {@link SYNC_CONCURRENCY} at a time (opened read-only: Linux flushes its data all the same). */
async function fsyncAll(paths: string[]): Promise<void> {
  const limit = pLimit(SYNC_CONCURRENCY);
  await Promise.all(paths.map((path) =>
    limit(async () => {
      using file = await Deno.open(path, { read: true });
      await file.sync();
    })
  ));
}

/** Relative path of a blob inside a run directory. */
export function blobRelativePath(hash: string): string {
  return `objects/sha256/${hash.slice(0, 2)}/${hash.slice(2)}`;
}

/** Reads and writes blobs under one run directory. */
export class BlobStore {
  readonly #root: string;
  readonly #known = new Set<string>();
  #tmpCounter = 0;
  /** Directories this store has made (or found), so each is made once. */
  readonly #dirs = new Set<string>();
  /** Blobs written but not yet fsynced, and the syncs under way. */
  #unsynced: string[] = [];
  readonly #syncing = new Set<Promise<void>>();
  /** True when every blob under the root is one this store knows (a run it created): no existence probe. */
  #fresh = false;

  /** A store rooted at a run directory (blobs go to `<root>/objects/`). */
  constructor(root: string) {
    this.#root = root;
  }

  /**
   * Declares that the directory holds exactly the blobs `known` and that only this store writes blobs to it
   * (a run just created): storing a blob then skips the read that checks for an existing copy.
   */
  markFresh(known: Iterable<string>): void {
    for (const hash of known) this.#known.add(hash);
    this.#fresh = true;
  }

  /** The absolute path of blob `hash`. */
  pathOf(hash: string): string {
    if (!isSha256Hex(hash)) throw new BlobIntegrityError(hash, "not a SHA-256 hex name");
    return join(this.#root, blobRelativePath(hash));
  }

  /**
   * Stores bytes once and returns their SHA-256; storing existing content checks it and writes nothing. The
   * bytes may come in chunks (a large output built in parts), written in order and never joined.
   */
  async put(data: Uint8Array | readonly Uint8Array[]): Promise<string> {
    const chunks = data instanceof Uint8Array ? [data] : data;
    const hash = sha256Hex(chunks);
    if (this.#known.has(hash)) return hash;
    const path = this.pathOf(hash);
    if (!this.#fresh) {
      try {
        const existing = await Deno.readFile(path);
        if (sha256Hex(existing) !== hash) {
          throw new BlobIntegrityError(hash, "existing file does not match its name");
        }
        this.#known.add(hash);
        return hash;
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    const tmpDir = join(this.#root, "objects", "tmp");
    const tmp = join(tmpDir, `${hash}.${Deno.pid}.${this.#tmpCounter++}`);
    try {
      await this.#mkdir(tmpDir);
      await this.#mkdir(join(this.#root, "objects", "sha256", hash.slice(0, 2)));
      // Created read-only: the descriptor opened here may still write, nothing can later.
      const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o444 });
      try {
        for (const bytes of chunks) {
          let written = 0;
          while (written < bytes.length) written += await file.write(bytes.subarray(written));
        }
      } finally {
        file.close();
      }
      // A umask that strips read bits would leave the blob unreadable to others: set the mode outright then.
      if ((Deno.umask() & 0o444) !== 0) await Deno.chmod(tmp, 0o444);
      await Deno.rename(tmp, path);
    } catch (error) {
      throw writeError(error, tmp); // a full disk names the blob being written
    }
    this.#unsynced.push(path);
    this.#known.add(hash);
    return hash;
  }

  /**
   * Makes every blob this store has written so far durable (fsync, {@link SYNC_CONCURRENCY} at a time); resolves
   * once those and any syncs already under way are done.
   */
  async sync(): Promise<void> {
    const paths = this.#unsynced;
    this.#unsynced = [];
    if (paths.length > 0) {
      const done = fsyncAll(paths).finally(() => this.#syncing.delete(done));
      this.#syncing.add(done);
    }
    await Promise.all([...this.#syncing]);
  }

  async #mkdir(dir: string): Promise<void> {
    if (this.#dirs.has(dir)) return;
    await Deno.mkdir(dir, { recursive: true });
    this.#dirs.add(dir);
  }

  /** Stores a string's UTF-8 bytes. */
  putText(text: string): Promise<string> {
    return this.put(new TextEncoder().encode(text));
  }

  /** Stores the RFC 8785 canonical JSON of an I-JSON value. */
  putJson(value: unknown): Promise<string> {
    return this.put(canonicalBytes(value));
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

  /** Reads blob `hash` and checks its bytes against its name. */
  async get(hash: string): Promise<Uint8Array> {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(this.pathOf(hash));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) throw new BlobIntegrityError(hash, "missing");
      throw error;
    }
    if (sha256Hex(bytes) !== hash) {
      throw new BlobIntegrityError(hash, "altered (content does not match its name)");
    }
    return bytes;
  }

  /** Reads a blob as UTF-8 text. */
  async getText(hash: string): Promise<string> {
    return new TextDecoder().decode(await this.get(hash));
  }

  /** Reads a JSON blob, optionally validating it with a zod schema. */
  async getJson<T = unknown>(hash: string, schema?: z.ZodType<T>): Promise<T> {
    const value = JSON.parse(await this.getText(hash));
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
    const stored = await this.put(await other.get(hash));
    if (stored !== hash) throw new BlobIntegrityError(hash, "copy changed its content");
  }
}
