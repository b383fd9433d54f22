/**
 * The run journal: `journal.jsonl`, one canonical JSON record per line, each line carrying the SHA-256 of the
 * previous line (`prev`), so an edited, dropped or reordered line breaks the chain at a named line. The first
 * line is the run header; then one line per completed node and per exported file, appended with fsync.
 *
 * @module
 */
import { z } from "zod";
import { canonicalJson } from "./canonical.ts";
import { sha256Hex } from "./hash.ts";
import { type Node, NodeSchema, type RunHeader, RunHeaderSchema } from "./manifest.ts";

const Sha = z.string().regex(/^[0-9a-f]{64}$/);

/** A journal line. */
export const JournalEntrySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("header"), prev: z.null(), header: RunHeaderSchema }),
  z.object({ type: z.literal("node"), prev: Sha, node: NodeSchema }),
  z.object({ type: z.literal("file"), prev: Sha, name: z.string(), hash: Sha }),
]);
/** A journal line. */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

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
}

/** Reads and checks a journal file; problems are collected, not thrown. */
export async function readJournal(path: string): Promise<JournalReading> {
  return parseJournal(await Deno.readFile(path));
}

/** Checks a journal's bytes; problems are collected, not thrown. */
export function parseJournal(bytes: Uint8Array): JournalReading {
  const text = new TextDecoder().decode(bytes);
  const reading: JournalReading = {
    nodes: [],
    files: {},
    lines: 0,
    sha256: sha256Hex(bytes),
    problems: [],
    lastLineHash: null,
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
    const where = `journal line ${index + 1}`;
    let entry: JournalEntry;
    try {
      const parsed = JournalEntrySchema.safeParse(JSON.parse(line));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        reading.problems.push(
          `${where}: invalid record at ${issue?.path.join(".") ?? "?"}: ${issue?.message}`,
        );
        prev = sha256Hex(line);
        continue;
      }
      entry = parsed.data;
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      reading.problems.push(`${where}: not JSON (${error.message})`);
      prev = sha256Hex(line);
      continue;
    }
    if (entry.prev !== prev) {
      reading.problems.push(
        `${where}: chain broken (prev does not match the hash of line ${index}; edited?)`,
      );
    }
    if (canonicalJson(JSON.parse(line)) !== line) {
      reading.problems.push(`${where}: not in canonical form (edited?)`);
    }
    if (index === 0 && entry.type !== "header") {
      reading.problems.push(`${where}: the first line must be the header`);
    }
    if (index > 0 && entry.type === "header") reading.problems.push(`${where}: a second header`);
    if (entry.type === "header") reading.header = entry.header;
    else if (entry.type === "node") reading.nodes.push(entry.node);
    else reading.files[entry.name] = entry.hash;
    prev = sha256Hex(line);
  }
  reading.lines = lines.length;
  reading.lastLineHash = prev;
  return reading;
}

/** Appends canonical lines to a journal with fsync; appends are serialized. */
export class JournalWriter {
  #file: Deno.FsFile;
  #prev: string | null;
  #queue: Promise<void> = Promise.resolve();

  private constructor(file: Deno.FsFile, prev: string | null) {
    this.#file = file;
    this.#prev = prev;
  }

  /** Creates a new journal (the file must not exist) and writes its header line. */
  static async create(path: string, header: RunHeader): Promise<JournalWriter> {
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o644 });
    const writer = new JournalWriter(file, null);
    await writer.#append({ type: "header", prev: null, header });
    return writer;
  }

  /** Opens an existing journal for appending after its last good line. */
  static async reopen(path: string, lastLineHash: string | null): Promise<JournalWriter> {
    const file = await Deno.open(path, { append: true });
    return new JournalWriter(file, lastLineHash);
  }

  /** Appends a completed node. */
  appendNode(node: Node): Promise<void> {
    return this.#append({ type: "node", prev: "", node });
  }

  /** Appends an exported file record. */
  appendFile(name: string, hash: string): Promise<void> {
    return this.#append({ type: "file", prev: "", name, hash });
  }

  #append(entry: JournalEntry | { type: string; prev: string | null; [k: string]: unknown }): Promise<void> {
    const run = async () => {
      const line = canonicalJson({ ...entry, prev: this.#prev });
      const bytes = new TextEncoder().encode(line + "\n");
      let written = 0;
      while (written < bytes.length) written += await this.#file.write(bytes.subarray(written));
      await this.#file.sync();
      this.#prev = sha256Hex(line);
    };
    const next = this.#queue.then(run);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    this.#file.close();
  }
}
