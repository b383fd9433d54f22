/**
 * The run journal: `journal.jsonl`, one canonical JSON record per line, each line carrying the SHA-256 of the
 * previous line (`prev`), so an edited, dropped or reordered line breaks the chain at a named line. The first
 * line is the run header; then one line per completed node and per exported file, appended with fsync.
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import { z } from "zod";
import { MAX_RUN_FILE_BYTES, readInputFile, writeError } from "../fs_input.ts";
import { canonicalJson } from "./canonical.ts";
import { sha256Hex } from "./hash.ts";
import { fileLines } from "../core/file_chunks.ts";
import { type Node, nodeNameProblem, NodeSchema, type RunHeader, RunHeaderSchema } from "./manifest.ts";
import { plainCheck } from "../core/plain_check.ts";
import { parseCanonicalJson, parseJson } from "../core/json_read.ts";

const encoder = new TextEncoder();

const Sha = z.string().regex(/^[0-9a-f]{64}$/);

/** A journal line. */
const NodeOrFileLineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("node"), prev: Sha, node: NodeSchema }),
  z.object({ type: z.literal("file"), prev: Sha, name: z.string(), hash: Sha }),
]);
export const JournalEntrySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("header"), prev: z.null(), header: RunHeaderSchema }),
  ...NodeOrFileLineSchema.options,
]);
/** A journal line. */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/**
 * True only when `JournalEntrySchema` accepts `entry` as a node or file line and would return it unchanged
 * (core/plain_check.ts); header lines, one per journal, are left to the schema.
 */
export const isPlainJournalLine = plainCheck(NodeOrFileLineSchema);

/** A journal as read back: the header, nodes and files, plus every problem found, by line number (1-based). */
export interface JournalReading {
  header?: RunHeader;
  nodes: Node[];
  files: Record<string, string>;
  lines: number;
  sha256: string;
  problems: string[];
  /** The hash of the last good line, which the next appended line must carry as `prev`. */
  lastLineHash: string | null;
  /** Each node's canonical JSON text, where its line gave it for free (index as `nodes`). */
  nodeTexts: (string | undefined)[];
}

/** The start of a canonical node line, and the length of its end (`,"prev":"<64 hex>","type":"node"}`). */
const NODE_LINE_HEAD = '{"node":';
const NODE_LINE_TAIL = ',"prev":"'.length + 64 + '","type":"node"}'.length;

/** Reads and checks a journal file; problems are collected, not thrown. */
export async function readJournal(path: string): Promise<JournalReading> {
  // A regular file of at most the size `verify` reads (a FIFO or a sparse file is refused, never waited on).
  return parseJournal(await readInputFile(path, undefined, MAX_RUN_FILE_BYTES));
}

/**
 * Nodes the caller knows valid, with their canonical text, by index: a line that is exactly
 * `{"node":TEXT,"prev":"<chain hash>","type":"node"}` is then taken unparsed (`verify` passes the manifest's).
 */
export interface KnownNodes {
  text(index: number): string | undefined;
  node(index: number): Node;
}

/** Checks a journal's bytes; problems are collected, not thrown. */
export function parseJournal(bytes: Uint8Array, known?: KnownNodes): JournalReading {
  const text = new TextDecoder().decode(bytes);
  const reading: JournalReading = {
    nodes: [],
    files: {},
    lines: 0,
    sha256: sha256Hex(bytes),
    problems: [],
    lastLineHash: null,
    nodeTexts: [],
  };
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  else if (lines.length > 0) {
    reading.problems.push(
      `journal line ${lines.length}: incomplete last line (no newline; interrupted write?)`,
    );
    lines.pop();
  }
  let prev: string | null = null;
  for (const [index, line] of lines.entries()) {
    // (prev is null only before the first line, the header's.)
    const text = prev === null ? undefined : known?.text(reading.nodes.length);
    if (text !== undefined && line === `${NODE_LINE_HEAD}${text},"prev":"${prev}","type":"node"}`) {
      reading.nodeTexts[reading.nodes.length] = text;
      reading.nodes.push(known!.node(reading.nodes.length));
      prev = sha256Hex(line);
      continue;
    }
    const where = `journal line ${index + 1}`;
    let entry: JournalEntry;
    let value: unknown;
    try {
      value = parseJson(line);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      reading.problems.push(`${where}: not JSON (${error.message})`);
      prev = sha256Hex(line);
      continue;
    }
    // Output and input names are checked on the value as parsed: the schema drops a `__proto__` member.
    const names = value !== null && typeof value === "object" && (value as { type?: unknown }).type === "node"
      ? nodeNameProblem((value as { node?: unknown }).node)
      : null;
    if (names !== null) {
      reading.problems.push(`${where}: invalid node: ${names}`);
      prev = sha256Hex(line);
      continue;
    }
    // The usual node and file lines pass the plain check; the schema decides the rest and names problems.
    const plain = isPlainJournalLine(value);
    if (plain) entry = value as JournalEntry;
    else {
      const parsed = JournalEntrySchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        reading.problems.push(
          `${where}: invalid record at ${issue?.path.join(".") ?? "?"}: ${issue?.message}`,
        );
        prev = sha256Hex(line);
        continue;
      }
      entry = parsed.data;
    }
    if (entry.prev !== prev) {
      reading.problems.push(
        `${where}: chain broken (prev does not match the hash of line ${index}; edited?)`,
      );
    }
    const canonical = canonicalJson(value) === line;
    if (!canonical) reading.problems.push(`${where}: not in canonical form (edited?)`);
    if (index === 0 && entry.type !== "header") {
      reading.problems.push(`${where}: the first line must be the header`);
    }
    if (index > 0 && entry.type === "header") reading.problems.push(`${where}: a second header`);
    if (entry.type === "header") reading.header = entry.header;
    else if (entry.type === "node") {
      // A canonical plain line holds the node's canonical text: `{"node":TEXT,"prev":"…","type":"node"}`.
      reading.nodeTexts[reading.nodes.length] = plain && canonical
        ? line.slice(NODE_LINE_HEAD.length, line.length - NODE_LINE_TAIL)
        : undefined;
      reading.nodes.push(entry.node);
    } else reading.files[entry.name] = entry.hash;
    prev = sha256Hex(line);
  }
  reading.lines = lines.length;
  reading.lastLineHash = prev;
  return reading;
}

/**
 * The nodes of a journal this process writes (or wrote), one line at a time, keys sorted: a run reads its own
 * nodes back without holding them all. Checked when written or reopened, so not validated again.
 */
export async function* journalNodes(path: string): AsyncGenerator<Node> {
  for await (const text of journalNodeTexts(path)) yield parseCanonicalJson(text) as Node;
}

/** The end of a canonical node line: its chain hash and type. */
const NODE_LINE_END = /^,"prev":"[0-9a-f]{64}","type":"node"\}$/;

/**
 * The canonical text of each node of a journal this process writes (or wrote), one line at a time, cut from its
 * line unparsed (what {@link journalNodes} parses; the manifest pretty-prints it).
 */
export async function* journalNodeTexts(path: string): AsyncGenerator<string> {
  let line = 0;
  for await (const text of fileLines(path)) {
    line++;
    const tail = text.length - NODE_LINE_TAIL;
    if (
      text.startsWith(NODE_LINE_HEAD) && tail > NODE_LINE_HEAD.length && NODE_LINE_END.test(text.slice(tail))
    ) {
      yield text.slice(NODE_LINE_HEAD.length, tail);
      continue;
    }
    const entry = parseCanonicalJson(text) as { type?: unknown; node?: Node };
    if (entry.type !== "header" && entry.type !== "file") {
      throw new Error(`${path} line ${line}: not a journal record`);
    }
  }
}

/** One append waiting for the next group commit. */
interface PendingAppend {
  /** The line's record given its `prev`, members in code-unit order (written without a copy). */
  entry: (prev: string | null) => Record<string, unknown>;
  /** Resolves once what the line names is durable (its blobs are synced); the line is written after it. */
  ready: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A journal's SHA-256 and its number of lines (as the manifest states them). */
export interface JournalDigest {
  lines: number;
  sha256: string;
}

/**
 * Appends canonical lines with fsync, in the order asked for; appends that arrive during a sync are written
 * and synced together next (a group commit), each resolving once its line is on disk.
 */
export class JournalWriter {
  #file: Deno.FsFile;
  #prev: string | null;
  /** The running hash and line count of the file this writer created and wrote (null when not known). */
  #digest: { hash: Hash; lines: number } | null;
  #waiting: PendingAppend[] = [];
  /** Whether a flush loop is running, and that loop. */
  #flushing = false;
  #flushed: Promise<void> = Promise.resolve();

  readonly #path: string;

  private constructor(file: Deno.FsFile, prev: string | null, path: string, created: boolean) {
    this.#file = file;
    this.#prev = prev;
    this.#path = path;
    // A reopened file's earlier lines are not hashed here: its digest is read back.
    this.#digest = created ? { hash: createHash("sha256"), lines: 0 } : null;
  }

  /** Creates a new journal (the file must not exist) and writes its header line. */
  static async create(path: string, header: RunHeader): Promise<JournalWriter> {
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o644 });
    const writer = new JournalWriter(file, null, path, true);
    await writer.#append((prev) => ({ header, prev, type: "header" }), Promise.resolve());
    return writer;
  }

  /** Opens an existing journal for appending after its last good line. */
  static async reopen(path: string, lastLineHash: string | null): Promise<JournalWriter> {
    const file = await Deno.open(path, { append: true });
    return new JournalWriter(file, lastLineHash, path, false);
  }

  /** Appends a completed node, in call order, once its `ready` (its blobs' sync) resolves. */
  appendNode(node: Node, ready: Promise<void> = Promise.resolve()): Promise<void> {
    return this.#append((prev) => ({ node, prev, type: "node" }), ready);
  }

  /** Appends an exported file record (written after `ready`, in order, as {@link appendNode}). */
  appendFile(name: string, hash: string, ready: Promise<void> = Promise.resolve()): Promise<void> {
    return this.#append((prev) => ({ hash, name, prev, type: "file" }), ready);
  }

  #append(entry: PendingAppend["entry"], ready: Promise<void>): Promise<void> {
    ready.catch(() => {}); // its failure is reported by this append
    return new Promise((resolve, reject) => {
      this.#waiting.push({ entry, ready, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        this.#flushed = this.#flush();
      }
    });
  }

  /** Writes and syncs the waiting appends, batch after batch, until none is left. */
  async #flush(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#flushBatch(this.#waiting.splice(0));
    } finally {
      this.#flushing = false; // in the same turn as the last check for waiting appends
    }
  }

  async #flushBatch(batch: PendingAppend[]): Promise<void> {
    try {
      await Promise.all(batch.map((pending) => pending.ready));
    } catch (error) {
      for (const pending of batch) pending.reject(error); // a blob is not durable: no line of the batch is
      return;
    }
    const lines: string[] = [];
    const written: PendingAppend[] = [];
    let prev = this.#prev;
    for (const pending of batch) {
      try {
        const line = canonicalJson(pending.entry(prev));
        lines.push(line + "\n");
        prev = sha256Hex(line);
        written.push(pending);
      } catch (error) {
        pending.reject(error); // not I-JSON: this append alone is refused
      }
    }
    if (written.length === 0) return;
    try {
      const bytes = encoder.encode(lines.join(""));
      let at = 0;
      // Written synchronously (to the page cache); synced async.
      while (at < bytes.length) at += this.#file.writeSync(bytes.subarray(at));
      await this.#file.sync();
      this.#prev = prev;
      this.#digest?.hash.update(bytes);
      if (this.#digest) this.#digest.lines += lines.length;
      for (const pending of written) pending.resolve();
    } catch (error) {
      this.#digest = null; // what the file holds is no longer known: it is read back (see writtenDigest)
      const mapped = writeError(error, this.#path); // a full disk names the journal
      for (const pending of written) pending.reject(mapped);
    }
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    while (this.#flushing) await this.#flushed;
    this.#file.close();
  }

  /**
   * The closed journal's SHA-256 and lines from the running hash of what this writer wrote, once (null when the
   * writer reopened the file, a write failed, or it was asked before): then the file is to be read.
   */
  writtenDigest(): JournalDigest | null {
    const digest = this.#digest;
    if (digest === null || this.#flushing) return null;
    this.#digest = null; // a hash is digested once
    return { lines: digest.lines, sha256: digest.hash.digest("hex") };
  }
}
