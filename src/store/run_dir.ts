/**
 * Run directories: created exclusively, journaled while running, sealed by an atomically written manifest; a
 * finished run is never resumed or changed. Layout: `journal.jsonl`, `manifest.json`, `objects/sha256/…`, and
 * exported files (also blobs, listed in the manifest's `files`).
 *
 * @module
 */
import { heapBudget } from "../core/heap_budget.ts";
import { writeError } from "../fs_input.ts";
import { createHash } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { UsageError } from "../errors.ts";
import { inputError, MAX_RUN_FILE_BYTES, readInputText, statInputDirectory, subjectOf } from "../fs_input.ts";
import { BlobStore } from "./blob_store.ts";
import { canonicalJson } from "./canonical.ts";
import { journalNodes, journalNodeTexts, JournalWriter, readJournal } from "./journal.ts";
import { hashFile } from "../core/file_chunks.ts";
import { type Manifest, ManifestSchema, type Node, type RunHeader } from "./manifest.ts";
import { type ResumeExpectation, resumeMismatch } from "./resume_check.ts";
import { type LockHolder, RunLock } from "./run_lock.ts";

export { CREATING_MARK, RUN_FILES } from "./run_files.ts";
import { CREATING_MARK, RUN_FILES } from "./run_files.ts";
import { parseJson } from "../core/json_read.ts";

/** An exported file name: a plain name, no directories, not one of the store's own names. */
export function checkExportName(name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || Object.values(RUN_FILES).includes(name as never)) {
    throw new Error(`invalid exported file name ${JSON.stringify(name)}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Removes temp siblings of killed creations of `path` (their lock is free); live ones keep their lock. */
async function removeAbandonedBuilds(path: string): Promise<void> {
  const prefix = `.${basename(path)}${CREATING_MARK}`;
  const parent = dirname(path);
  for await (const entry of Deno.readDir(parent)) {
    if (!entry.isDirectory || !entry.name.startsWith(prefix)) continue;
    const dir = join(parent, entry.name);
    let lock: RunLock;
    try {
      lock = await RunLock.acquire(dir);
    } catch (error) {
      if (error instanceof UsageError) continue; // being created right now
      throw error;
    }
    await lock.release();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes bytes to `path` atomically (temp file, fsync, rename); refuses to replace an existing file. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  await writeChunksAtomic(path, [bytes]);
}

/** How many nodes the manifest prints at once. */
const MANIFEST_BATCH_NODES = 256;

/** How much text {@link writeTextAtomic} gathers per write. */
const TEXT_WRITE_CHUNK = 64 * 1024;

/** Writes text pieces to `path` atomically (an existing file is refused); returns the SHA-256 of the bytes. */
export function writeTextAtomic(
  path: string,
  pieces: Iterable<string> | AsyncIterable<string>,
): Promise<string> {
  const encoder = new TextEncoder();
  return writeChunksAtomic(
    path,
    (async function* () {
      let gathered = "";
      for await (const piece of pieces) {
        gathered += piece;
        if (gathered.length >= TEXT_WRITE_CHUNK) {
          yield encoder.encode(gathered);
          gathered = "";
        }
      }
      if (gathered.length > 0) yield encoder.encode(gathered);
    })(),
  );
}

/** Writes chunks to `path` atomically (temp file, fsync, rename) and returns the SHA-256 of the bytes. */
async function writeChunksAtomic(
  path: string,
  chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<string> {
  if (await exists(path)) throw new Error(`refusing to overwrite ${path}`);
  const tmp = `${path}.tmp-${Deno.pid}`;
  const hash = createHash("sha256");
  try {
    const file = await Deno.open(tmp, { write: true, create: true, truncate: true, mode: 0o644 });
    try {
      for await (const bytes of chunks) {
        hash.update(bytes);
        let written = 0;
        while (written < bytes.length) written += await file.write(bytes.subarray(written));
      }
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, path);
  } catch (error) {
    throw writeError(error, path); // a full disk names the file (the manifest, an export)
  }
  return hash.digest("hex");
}

/** The SHA-256 and the number of lines (newline bytes) of a file, read in chunks. */
async function hashLines(path: string): Promise<{ lines: number; sha256: string }> {
  let lines = 0;
  const sha256 = await hashFile(path, (chunk) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  });
  return { lines, sha256 };
}

/** The refusal of resuming a finished run (`--resume DIR` of a sealed run): exit 2, naming it. */
export function finishedRunRefusal(path: string): UsageError {
  return new UsageError(`${path} is a finished run (manifest.json exists); a finished run is never resumed`);
}

/** A run being written. */
export class RunDir {
  /** The run directory. */
  readonly path: string;
  /** Its blob store. */
  readonly store: BlobStore;
  /** The header written as the journal's first line. */
  readonly header: RunHeader;
  /** The nodes a resumed journal held when reopened (empty for a new run); later ones are in the journal only. */
  readonly resumedNodes: readonly Node[];
  #nodeCount: number;
  readonly #files: Record<string, string>;
  readonly #journal: JournalWriter;
  readonly #lock: RunLock;
  /** In a run this process created: every blob a durable line names (the seal removes the others). */
  readonly #referenced: Set<string> | undefined;
  #sealed = false;

  private constructor(
    path: string,
    header: RunHeader,
    nodes: Node[],
    files: Record<string, string>,
    journal: JournalWriter,
    lock: RunLock,
    created = false,
  ) {
    this.path = path;
    this.store = new BlobStore(path);
    this.header = header;
    this.resumedNodes = nodes;
    this.#nodeCount = nodes.length;
    this.#files = files;
    this.#journal = journal;
    this.#lock = lock;
    this.#referenced = created ? new Set() : undefined;
  }

  /** The writer whose lock this run took over (it died while writing the run), if any. */
  get takenOverFrom(): LockHolder | undefined {
    return this.#lock.takenOverFrom;
  }

  /**
   * Creates a new run directory exclusively (an existing path: {@link UsageError}, left as it was), `sources`
   * stored as blobs and named in the header. Built in a temp sibling and renamed into place, so a kill leaves
   * no run or a resumable one; the writer's lock is held until {@link finish} or {@link abandon}.
   */
  static async create(
    path: string,
    header: Omit<RunHeader, "sources">,
    sources: Record<string, Uint8Array> = {},
  ): Promise<RunDir> {
    canonicalJson(header); // a header that is not I-JSON is refused before anything is created
    const refuseExisting = () =>
      new UsageError(`output directory ${path} already exists; a run never reuses or overwrites one`);
    try {
      await Deno.mkdir(dirname(path), { recursive: true });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotADirectory) {
        throw new UsageError(`output directory ${path}: its parent is not a directory`);
      }
      throw inputError(error, path, "--output");
    }
    if (await exists(path)) throw refuseExisting();
    await removeAbandonedBuilds(path);
    const tmp = join(
      dirname(path),
      `.${basename(path)}${CREATING_MARK}${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`,
    );
    await Deno.mkdir(tmp);
    let lock: RunLock | undefined;
    let journal: JournalWriter | undefined;
    try {
      lock = await RunLock.acquire(tmp, path);
      const store = new BlobStore(tmp);
      const sourceHashes: Record<string, string> = {};
      for (const [name, bytes] of Object.entries(sources)) sourceHashes[name] = await store.put(bytes);
      await store.sync(); // the header names them
      const full: RunHeader = { ...header, sources: sourceHashes };
      journal = await JournalWriter.create(join(tmp, RUN_FILES.journal), full);
      if (await exists(path)) throw refuseExisting();
      try {
        await Deno.rename(tmp, path);
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotADirectory) {
          throw refuseExisting();
        }
        if (error instanceof Error && /not empty/i.test(error.message)) throw refuseExisting();
        throw error;
      }
      lock.movedTo(path);
      const run = new RunDir(path, full, [], {}, journal, lock, true);
      run.store.markFresh(Object.values(sourceHashes));
      return run;
    } catch (error) {
      await journal?.close();
      await lock?.release();
      await Deno.remove(tmp, { recursive: true }).catch((cleanup) => {
        if (!(cleanup instanceof Deno.errors.NotFound)) throw cleanup;
      });
      throw error;
    }
  }

  /**
   * Reopens an unfinished run under its writer's lock (a live writer is refused, named); a finished or damaged
   * run, or one whose header differs from `expect`, is refused naming why.
   */
  static async resume(path: string, expect?: ResumeExpectation): Promise<RunDir> {
    const refuseFinished = () => finishedRunRefusal(path);
    if (await exists(join(path, RUN_FILES.manifest))) throw refuseFinished();
    const journalPath = join(path, RUN_FILES.journal);
    if (!(await exists(journalPath))) {
      throw new UsageError(`${path} has no ${RUN_FILES.journal}: not a run directory`);
    }
    const lock = await RunLock.acquire(path);
    try {
      // Checked again under the lock: the previous writer may have sealed the run meanwhile.
      if (await exists(join(path, RUN_FILES.manifest))) throw refuseFinished();
      const reading = await readJournal(journalPath);
      const fatal = reading.problems.filter((p) => !p.includes("incomplete last line"));
      if (fatal.length > 0 || !reading.header) {
        throw new UsageError(`cannot resume ${path}: ${fatal[0] ?? "journal has no header"}`);
      }
      if (expect) {
        const difference = resumeMismatch(reading.header, expect);
        if (difference) throw new UsageError(`cannot resume ${path}: ${difference}`);
      }
      if (reading.problems.length > 0) {
        // An interrupted final append: drop the partial line so the chain continues from the last good one.
        const text = new TextDecoder().decode(await Deno.readFile(journalPath));
        const keep = text.slice(0, text.lastIndexOf("\n") + 1);
        await Deno.truncate(journalPath, new TextEncoder().encode(keep).length);
      }
      await Deno.remove(join(path, RUN_FILES.objects, "tmp"), { recursive: true }).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
      // Temp files of an interrupted export or manifest write.
      for await (const entry of Deno.readDir(path)) {
        if (!entry.isFile || !/\.tmp-\d+$/.test(entry.name) || entry.name in reading.files) continue;
        await Deno.remove(join(path, entry.name));
      }
      const journal = await JournalWriter.reopen(journalPath, reading.lastLineHash);
      const run = new RunDir(path, reading.header, reading.nodes, reading.files, journal, lock);
      // A blob no durable line names may be cut short (power loss before its sync): removed, rewritten if needed.
      await run.#removeUnreferencedBlobs().catch(async (error) => {
        await journal.close();
        throw error;
      });
      return run;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Appends a completed node to the journal (fsync), once the blobs written before it are durable. */
  async recordNode(node: Node): Promise<void> {
    this.#assertOpen();
    // Lines keep the order of the calls, each written once the blobs written before it are synced.
    const synced = this.store.sync();
    this.#nodeCount++;
    const appended = this.#journal.appendNode(node, synced);
    const referenced = this.#referenced;
    if (referenced !== undefined) {
      // Named once its line is durable (before the seal reads the set); a refused line names nothing.
      appended.then(() => {
        for (const hash of Object.values(node.inputs)) referenced.add(hash);
        for (const hash of Object.values(node.outputs)) referenced.add(hash);
        for (const hash of node.requests) referenced.add(hash);
      }, () => {});
    }
    await appended;
  }

  /** How many nodes the run holds (resumed and recorded since). */
  get nodeCount(): number {
    return this.#nodeCount;
  }

  /** The run's nodes in journal order, read one line at a time (only lines whose `recordNode` resolved). */
  readNodes(): AsyncGenerator<Node> {
    return journalNodes(join(this.path, RUN_FILES.journal));
  }

  /** Exports a file (a blob, written atomically, journaled); the same name again only with the same content. */
  async writeFile(name: string, content: Uint8Array | string): Promise<string> {
    this.#assertOpen();
    checkExportName(name);
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
    return await this.publish(name, await this.store.put(bytes));
  }

  /** Publishes a stored blob (a node output) as an exported file of exactly its bytes. */
  async publish(name: string, hash: string): Promise<string> {
    this.#assertOpen();
    checkExportName(name);
    const previous = this.#files[name];
    if (previous !== undefined) {
      if (previous !== hash) throw new Error(`${name} was already exported with different content`);
      return hash;
    }
    const path = join(this.path, name);
    await Deno.remove(path).catch((error) => {
      // A file that exists but was never journaled is an interrupted export: it is replaced.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    // Copied by the kernel and checked in chunks: a large file is never held in memory.
    const tmp = `${path}.tmp-${Deno.pid}`;
    try {
      await Deno.copyFile(this.store.pathOf(hash), tmp);
    } catch (error) {
      throw writeError(error, path); // a full disk names the published file
    }
    await Deno.chmod(tmp, 0o644);
    if ((await hashFile(tmp)) !== hash) {
      await Deno.remove(tmp);
      throw new Error(`blob ${hash} does not match its name; ${name} is not published`);
    }
    const file = await Deno.open(tmp, { write: true });
    try {
      await file.sync();
    } finally {
      file.close();
    }
    if (await exists(path)) throw new Error(`refusing to overwrite ${path}`);
    await Deno.rename(tmp, path);
    this.#files[name] = hash;
    await this.#journal.appendFile(name, hash, this.store.sync());
    return hash;
  }

  /** Exports a JSON file (pretty-printed for people; its hash is of these exact bytes). */
  writeJsonFile(name: string, value: unknown): Promise<string> {
    canonicalJson(value); // refuses non-I-JSON before anything is written
    return this.writeFile(name, JSON.stringify(value, null, 2) + "\n");
  }

  /** Seals the run: closes the journal and writes `manifest.json` atomically from it; returns its hash. */
  async finish(): Promise<{ hash: string }> {
    this.#assertOpen();
    this.#sealed = true;
    await this.#journal.close();
    this.store.closeFiles();
    await this.#removeUnreferencedBlobs();
    // What the writer wrote and synced, hashed as it went; read back only when that is not known (a resumed run).
    const journal = this.#journal.writtenDigest() ?? await hashLines(join(this.path, RUN_FILES.journal));
    // Streamed node by node, in exactly the bytes of `JSON.stringify(manifest, null, 2)`.
    const head = ManifestSchema.parse({
      ...this.header,
      finished: new Date().toISOString(),
      nodes: [],
      files: this.#files,
      journal,
    });
    const headText = JSON.stringify(head, null, 2) + "\n";
    const marker = '\n  "nodes": []';
    const at = headText.indexOf(marker);
    const nodes = journalNodeTexts(join(this.path, RUN_FILES.journal));
    // Each node exactly as journaled (canonical, so its keys are sorted), pretty-printed. The texts are this
    // run's own canonical lines (checked when written or reopened): the native parser suffices.
    const pieces = this.#nodeCount === 0 ? [headText] : (async function* () {
      yield headText.slice(0, at) + '\n  "nodes": [';
      // Printed a batch at a time: inside `[[…]]` each node has the nesting, so the indentation, of the manifest.
      let batch: string[] = [];
      let separator = "";
      const printed = () => {
        const text = JSON.stringify([JSON.parse(`[${batch.join(",")}]`)], null, 2);
        const piece = separator + text.slice("[\n  [".length, -"\n  ]\n]".length);
        batch = [];
        separator = ",";
        return piece;
      };
      for await (const node of nodes) {
        if (batch.push(node) === MANIFEST_BATCH_NODES) {
          heapBudget.check();
          yield printed();
        }
      }
      if (batch.length > 0) yield printed();
      yield "\n  ]" + headText.slice(at + marker.length);
    })();
    const hash = await writeTextAtomic(join(this.path, RUN_FILES.manifest), pieces);
    await this.#lock.release();
    return { hash };
  }

  /** Deletes blobs that no node, source or file references (left by an interrupted attempt before a resume). */
  async #removeUnreferencedBlobs(): Promise<void> {
    const referenced = new Set<string>([
      ...Object.values(this.#files),
      ...Object.values(this.header.sources),
    ]);
    const known = this.store.knownBlobs();
    if (known !== undefined && this.#referenced !== undefined) {
      for (const hash of known) {
        if (!referenced.has(hash) && !this.#referenced.has(hash)) await Deno.remove(this.store.pathOf(hash));
      }
      return;
    }
    let read = 0;
    for await (const node of this.readNodes()) {
      if (++read % 500 === 0) heapBudget.check();
      for (const h of [...Object.values(node.inputs), ...Object.values(node.outputs), ...node.requests]) {
        referenced.add(h);
      }
    }
    if (known !== undefined) {
      for (const hash of known) if (!referenced.has(hash)) await Deno.remove(this.store.pathOf(hash));
      return;
    }
    const root = join(this.path, RUN_FILES.objects, "sha256");
    if (!(await exists(root))) return;
    for await (const dir of Deno.readDir(root)) {
      if (!dir.isDirectory) continue;
      for await (const entry of Deno.readDir(join(root, dir.name))) {
        if (!referenced.has(dir.name + entry.name)) await Deno.remove(join(root, dir.name, entry.name));
      }
    }
  }

  /** Closes the journal without sealing (after a failure, so the run can be resumed). */
  async abandon(): Promise<void> {
    if (this.#sealed) return;
    this.#sealed = true;
    try {
      this.store.closeFiles();
      await this.#journal.close();
    } finally {
      await this.#lock.release();
    }
  }

  #assertOpen(): void {
    if (this.#sealed) throw new Error(`run ${this.path} is already sealed`);
  }
}

/** Reads and validates a finished run's manifest; errors name the run (and `option`), the file and the field. */
export async function readManifest(runPath: string, option?: string): Promise<Manifest> {
  await statInputDirectory(runPath, option);
  const path = join(runPath, RUN_FILES.manifest);
  try {
    await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`${subjectOf(runPath, option)}: has no manifest.json: not a finished run`);
    }
    throw inputError(error, path, option);
  }
  const text = await readInputText(path, option, MAX_RUN_FILE_BYTES);
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(`${path}: not JSON (${error.message})`);
    throw error;
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${path}: invalid field ${issue?.path.join(".")}: ${issue?.message}`);
  }
  return parsed.data;
}
