/**
 * The auditor's checker: phases `structure` (lstat walk, blobs hashed as met), `blobs`, `records` (manifest and
 * journal), `dag` (keys, references) and `files` (published files, strays); every problem a typed value.
 * The phases and problems: docs/FORMAT.md section 11.
 *
 * @module
 */
import { join } from "node:path";
import { terminalSafe } from "../core/printable.ts";
import { blobRelativePath } from "./blob_store.ts";
import { canonicalJson, NotIJsonError } from "./canonical.ts";
import { type JournalReading, parseJournal } from "./journal.ts";
import {
  type Manifest,
  ManifestSchema,
  type Node,
  nodeKey,
  nodeNameProblem,
  RunHeaderSchema,
} from "./manifest.ts";
import { parseJsonBytes } from "../core/json_read.ts";
import { RUN_FILES } from "./run_files.ts";
import { isPlainNode, keyTextOfCanonical } from "./plain_records.ts";
import { sha256Hex } from "./hash.ts";
import { checkManifestSchema, journalLineCount, nodeCountProblem } from "./manifest_check.ts";
import { BLOB_NAME, type DirScan, scanDirectorySync, ScanPool } from "./dir_scan.ts";
import { type EntryInfo, entryKind, isFsError, UnsafeFileError } from "./unsafe_file.ts";
import { hashRegularFileSync, readRegularFileSync } from "./safe_read_sync.ts";
import { PROGRAM_SOURCE_NAME, programSourceProblems } from "./program_source.ts";

/** Kinds of problem `verify` reports. */
export type ProblemKind =
  | "missing"
  | "altered"
  | "dangling"
  | "key_mismatch"
  | "cycle"
  | "unknown_file"
  | "journal"
  | "manifest"
  | "file_mismatch"
  | "unfinished"
  | "not_regular"
  | "mode"
  | "unreadable"
  | "hard_link"
  | "not_node_output"
  | "undeclared_output";

/** The checker's phases, in order. */
export type Phase = "structure" | "blobs" | "records" | "dag" | "files";

/** One problem, with the object, node or file it concerns. */
export interface Problem {
  kind: ProblemKind;
  subject: string;
  detail: string;
  phase: Phase;
}

/** What the checker has looked at so far. */
export interface CheckStats {
  blobs_checked: number;
  bytes_checked: number;
  nodes_checked: number;
}

/** The outcome of verifying a run directory. */
export interface VerifyReport extends CheckStats {
  run: string;
  ok: boolean;
  problems: Problem[];
  /** What holds but is worth saying, such as a copy's lost read-only modes. */
  notes: string[];
}

/** How strict the checker is about what a copy of a run may lose. */
export interface CheckOptions {
  /**
   * A blob not 0444 is a `mode` problem (default); off, a run none of whose blobs is 0444 (a copy that lost
   * every mode alike) gets one note instead.
   */
  strictModes?: boolean;
  /** Workers that scan a large run's blob folders (default: one per other core); 0: this thread only. */
  workers?: number;
  /** The outputs each stage declares: any other is named. */
  declaredOutputs?: (stage: string) => readonly string[] | undefined;
}

/** The most `manifest.json` or `journal.jsonl` may hold (they are read whole). */
const MAX_RECORD_FILE_BYTES = 256 * 1024 * 1024;

/** The folders a run may hold under `objects/`. */
const OBJECT_FOLDER = /^objects(\/sha256(\/[0-9a-f]{2})?|\/tmp)?$/;
const BLOB_ROOT = "objects/sha256";
const BLOB_FOLDER = /^objects\/sha256\/[0-9a-f]{2}$/;
/** A run with fewer blob folders is scanned in this thread: starting workers costs more than they save. */
const POOL_MIN_FOLDERS = 16;

/** One scanning worker per other core (1 to 3); 0 where none can start or load its module. */
function scanWorkers(): number {
  if (typeof Worker === "undefined") return 0;
  const module = new URL("./dir_scan_worker.ts", import.meta.url);
  if (
    module.protocol === "file:" &&
    Deno.permissions.querySync({ name: "read", path: module }).state !== "granted"
  ) {
    return 0;
  }
  return Math.max(1, Math.min(3, (navigator.hardwareConcurrency ?? 1) - 1));
}

interface Entry {
  rel: string;
  info: EntryInfo;
  /** The blob this path names (`objects/sha256/XX/…`), if it names one. */
  hash?: string;
  /** A blob-named regular file's hash, or why it could not be read. */
  digest?: string;
  unsafe?: string;
}

interface ScannedDir {
  scan: DirScan;
  children: Map<string, ScannedDir>;
}

function nodeName(node: Node, index: number): string {
  return `node #${index} ${node.label || node.stage} (${node.key.slice(0, 12)})`;
}

/**
 * Checks one run directory: `check()` yields every problem, phase by phase. A missing, hostile or damaged
 * run is problems; it throws only for a failure of this program.
 */
export class RunChecker {
  /** What has been checked so far. */
  readonly stats: CheckStats = { blobs_checked: 0, bytes_checked: 0, nodes_checked: 0 };
  readonly #run: string;
  /** Every entry under the run by relative path but sound blobs; the regular files with a blob name by hash. */
  readonly #entries = new Map<string, Entry>();
  /** A sound blob (see `DirScan.sound`) is its size. */
  readonly #blobs = new Map<string, Entry | number>();
  readonly #present = new Set<string>();
  #manifest?: Manifest;
  #journal?: JournalReading;
  #walked = false;
  /** The entries directly in the run, known before the blob folders are scanned. */
  readonly #top = new Map<string, Entry>();
  /** The records phase and what follows from the records alone, done while the blobs are hashed. */
  #recordsEarly?: Promise<Problem[]>;
  #prepared?: Promise<void>;
  #keys: string[] = [];
  /** Each node's canonical text, when every manifest node is plain. */
  #nodeTexts?: string[];
  readonly #fileDigests = new Map<string, FileRead>();
  #referenced?: Set<string>;
  #buffer?: Uint8Array;
  #programEarly?: { ino: number | null; problems: { subject: string; detail: string }[] };
  readonly #strictModes: boolean;
  /** Blobs not 0444, by mode (octal text), when modes are not strict. */
  readonly #looseModes = new Map<string, number>();
  readonly #workers: number;
  readonly #declaredOutputs?: (stage: string) => readonly string[] | undefined;

  /** A checker of the run directory `run`. */
  constructor(run: string, options: CheckOptions = {}) {
    this.#run = run;
    this.#strictModes = options.strictModes ?? true;
    this.#workers = options.workers ?? scanWorkers();
    this.#declaredOutputs = options.declaredOutputs;
  }

  /** Notes on what holds but differs from the writer's run (once {@link check} has finished). */
  get notes(): string[] {
    if (this.#looseModes.size === 0) return [];
    const count = [...this.#looseModes.values()].reduce((a, b) => a + b, 0);
    const modes = [...this.#looseModes.keys()].sort().join(", ");
    return [
      `${count} of ${this.#blobs.size} blob(s) are not read-only (mode ${modes}, the writer's is 0444): a copy ` +
      `that lost its modes; their content is checked (--strict-modes counts them as problems)`,
    ];
  }

  /** Every problem of the run, phase by phase. */
  async *check(): AsyncGenerator<Problem> {
    const problems = await this.#collect("structure", (add) => this.#structure(add));
    yield* problems;
    if (!this.#walked) return;
    yield* await this.#collect("blobs", (add) => Promise.resolve(this.#hashBlobs(add)));
    yield* await (this.#recordsEarly ?? this.#collect("records", (add) => this.#records(add)));
    await this.#prepared;
    yield* await this.#collect("dag", (add) => Promise.resolve(this.#dag(add)));
    yield* await this.#collect("files", (add) => this.#checkFiles(add));
  }

  async #collect(
    phase: Phase,
    body: (add: (kind: ProblemKind, subject: string, detail: string) => void) => Promise<void>,
  ): Promise<Problem[]> {
    const out: Problem[] = [];
    await body((kind, subject, detail) => out.push({ kind, subject, detail, phase }));
    return out;
  }

  /** Phase 1: walk the run with lstat, blobs hashed as met; classify every entry. */
  async #structure(add: (kind: ProblemKind, subject: string, detail: string) => void): Promise<void> {
    let root: Deno.FileInfo;
    try {
      root = await Deno.stat(this.#run);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return add("missing", this.#run, "run directory does not exist");
      }
      if (isFsError(error)) return add("unreadable", this.#run, `cannot be read (${error.name})`);
      throw error;
    }
    if (!root.isDirectory) return add("missing", this.#run, `not a directory but a ${entryKind(root)}`);
    const { tree, done, help } = this.#startWalk();
    for (const scanned of tree.scan.entries) {
      if (scanned.info && !scanned.info.isDirectory) {
        this.#top.set(scanned.name, { rel: scanned.name, info: scanned.info });
      }
    }
    // This thread reads the records while the workers hash the blobs, then scans the folders left.
    this.#recordsEarly = this.#collect("records", (add) => this.#records(add));
    this.#prepared = this.#recordsEarly.then(() => this.#prepare());
    this.#prepared.then(help, help).catch(() => {}); // the records' failure is thrown in check()
    await done;
    /** The blobs in walk order: an entry, or a sound blob's hash and size. */
    const blobs: (Entry | [string, number])[] = [];
    const visit = (dir: ScannedDir, prefix: string): void => {
      if (dir.scan.listError !== undefined) {
        add("unreadable", prefix || ".", `directory cannot be listed (${dir.scan.listError})`);
        return;
      }
      const blobFolder = BLOB_FOLDER.test(prefix) ? prefix.slice(-2) : undefined;
      const sound = dir.scan.sound ?? { names: "", sizes: [] };
      let next = 0; // the next sound blob, merged with the entries in name order
      const soundBefore = (name?: string) => {
        for (; next < sound.sizes.length; next++) {
          const soundName = sound.names.slice(next * 62, next * 62 + 62);
          if (name !== undefined && soundName > name) return;
          blobs.push([blobFolder + soundName, sound.sizes[next]]);
        }
      };
      for (const scanned of dir.scan.entries) {
        soundBefore(scanned.name);
        const rel = prefix ? `${prefix}/${scanned.name}` : scanned.name;
        const info = scanned.info;
        if (!info) {
          add("unreadable", rel, `cannot be examined (${scanned.error})`);
          continue;
        }
        if (info.isDirectory) {
          if (rel.startsWith(`${RUN_FILES.objects}/`) && !OBJECT_FOLDER.test(rel)) {
            add("unknown_file", rel, "a folder under objects/ that is neither a blob prefix nor objects/tmp");
          }
          visit(dir.children.get(scanned.name)!, rel);
        } else {
          const hash = blobFolder !== undefined && BLOB_NAME.test(scanned.name)
            ? blobFolder + scanned.name
            : undefined;
          const entry = { rel, info, hash, digest: scanned.digest, unsafe: scanned.unsafe };
          this.#entries.set(rel, entry);
          if (hash !== undefined) blobs.push(entry);
          if (info.isFile && (info.nlink ?? 1) > 1) {
            add(
              "hard_link",
              rel,
              `${info.nlink} hard links: its bytes are shared with a file outside the run`,
            );
          }
        }
      }
      soundBefore();
    };
    visit(tree, "");
    this.#walked = true;
    const loose: { hash: string; mode: string }[] = [];
    let readOnly = 0;
    let changedLater = 0;
    for (const entry of blobs) {
      if (Array.isArray(entry)) {
        this.#blobs.set(...entry);
        readOnly++;
        continue;
      }
      const hash = entry.hash!;
      if (!entry.info.isFile) {
        add("not_regular", `blob ${hash}`, await this.#describeIrregular(entry));
        continue;
      }
      const mode = (entry.info.mode ?? 0o444) & 0o7777;
      if (mode !== 0o444) {
        loose.push({ hash, mode: mode.toString(8).padStart(4, "0") });
        if (changedAfterWritten(entry.info)) changedLater++;
      } else readOnly++;
      this.#blobs.set(hash, entry);
    }
    // A copy loses every blob's mode alike (one note); a blob writable beside read-only ones, or chmod-ed after
    // its content was written, is no copy's doing.
    if (!this.#strictModes && readOnly === 0 && changedLater === 0) {
      for (const { mode } of loose) this.#looseModes.set(mode, (this.#looseModes.get(mode) ?? 0) + 1);
    } else {
      const why = this.#strictModes
        ? ""
        : readOnly > 0
        ? ` (${readOnly} other blob(s) are: not a copy's lost modes)`
        : " (made writable after its content was written: not a copy's lost mode)";
      for (const { hash, mode } of loose) {
        add("mode", `blob ${hash}`, `mode ${mode}, want 0444 (read-only)${why}`);
      }
    }
  }

  /** Starts the walk: the blob folders of a large run go to a {@link ScanPool}, the rest is scanned here. */
  #startWalk(): { tree: ScannedDir; done: Promise<void>; help: () => void } {
    let pool: ScanPool | undefined;
    const pending: Promise<void>[] = [];
    const walk = (rel: string, scan: DirScan): ScannedDir => {
      const node: ScannedDir = { scan, children: new Map() };
      const subdirs = scan.entries.filter((e) => e.info?.isDirectory);
      const pooled = rel === BLOB_ROOT && subdirs.length >= POOL_MIN_FOLDERS && this.#workers > 0
        ? subdirs.filter((e) => BLOB_FOLDER.test(`${rel}/${e.name}`))
        : [];
      if (pooled.length > 0) {
        pool = new ScanPool(this.#workers, pooled.map((e) => join(this.#run, rel, e.name)));
        pooled.forEach((e, i) => {
          const childRel = `${rel}/${e.name}`;
          pending.push(
            pool!.results[i].then((found) => void node.children.set(e.name, walk(childRel, found))),
          );
        });
      }
      for (const e of subdirs) {
        if (pooled.includes(e)) continue;
        const childRel = rel ? `${rel}/${e.name}` : e.name;
        const blobFolder = BLOB_FOLDER.test(childRel);
        node.children.set(e.name, walk(childRel, scanDirectorySync(join(this.#run, childRel), blobFolder)));
      }
      return node;
    };
    try {
      const tree = walk("", scanDirectorySync(this.#run, false));
      const done = Promise.all(pending).then(() => {}).finally(() => pool?.close());
      return { tree, done, help: () => pool?.help() };
    } catch (error) {
      pool?.close();
      throw error;
    }
  }

  async #describeIrregular(entry: Entry): Promise<string> {
    if (!entry.info.isSymlink) return `a ${entryKind(entry.info)}, not a regular file`;
    let target = "?";
    try {
      target = await Deno.readLink(join(this.#run, entry.rel));
    } catch (error) {
      if (!isFsError(error)) throw error;
    }
    return `a symlink (to ${JSON.stringify(target)}), not a regular file inside the run`;
  }

  /** Phase 2: every blob's hash (read during the walk) against its name. */
  #hashBlobs(add: (kind: ProblemKind, subject: string, detail: string) => void): void {
    for (const [hash, entry] of this.#blobs) {
      this.#present.add(hash);
      if (typeof entry === "number") {
        this.stats.blobs_checked++;
        this.stats.bytes_checked += entry;
        continue;
      }
      if (entry.digest === undefined) {
        add("unreadable", `blob ${hash}`, entry.unsafe ?? "was not read");
        continue;
      }
      this.stats.blobs_checked++;
      this.stats.bytes_checked += entry.info.size;
      if (entry.digest !== hash) add("altered", `blob ${hash}`, `content hashes to ${entry.digest}`);
    }
  }

  async #readRecordFile(
    name: string,
    add: (kind: ProblemKind, subject: string, detail: string) => void,
  ): Promise<Uint8Array | "absent" | "bad"> {
    const entry = this.#top.get(name);
    if (!entry) return "absent";
    if (!entry.info.isFile) {
      add("not_regular", name, await this.#describeIrregular(entry));
      return "bad";
    }
    try {
      return readRegularFileSync(join(this.#run, name), entry.info, MAX_RECORD_FILE_BYTES);
    } catch (error) {
      if (!(error instanceof UnsafeFileError)) throw error;
      add("unreadable", name, error.reason);
      return "bad";
    }
  }

  /** Phase 3: the manifest and the journal. */
  async #records(add: (kind: ProblemKind, subject: string, detail: string) => void): Promise<void> {
    const manifestBytes = await this.#readRecordFile(RUN_FILES.manifest, add);
    // The journal's problems are named after the manifest's.
    const later: [ProblemKind, string, string][] = [];
    const journalBytes = await this.#readRecordFile(RUN_FILES.journal, (...p) => later.push(p));
    let plain: PlainManifest | undefined;
    if (manifestBytes === "absent") add("unfinished", RUN_FILES.manifest, "missing: the run never finished");
    else if (manifestBytes !== "bad") {
      try {
        const value: unknown = parseJsonBytes(manifestBytes);
        // Names are checked on the value as parsed: the schema drops a `__proto__` member.
        const rawNodes = value !== null && typeof value === "object"
          ? (value as { nodes?: unknown }).nodes
          : undefined;
        const tooMany = nodeCountProblem(
          value,
          journalBytes instanceof Uint8Array ? journalLineCount(journalBytes) : undefined,
        );
        // A plain node has plain names: they are looked at only when a node is not plain.
        plain = tooMany ? undefined : plainManifest(value);
        const names = !tooMany && !plain && Array.isArray(rawNodes)
          ? rawNodes.map((node, i) => [i, nodeNameProblem(node)] as const).find(([, p]) => p !== null)
          : undefined;
        if (tooMany) add("manifest", "manifest.json nodes", tooMany);
        else if (names !== undefined) add("manifest", `manifest.json node #${names[0]}`, names[1]!);
        else if (plain) {
          this.#manifest = plain.manifest;
          this.#nodeTexts = plain.texts;
        } else {
          const checked = checkManifestSchema(value);
          if (checked.manifest) this.#manifest = checked.manifest;
          for (const issue of checked.issues) {
            add("manifest", `manifest.json field ${issue.path}`, issue.message);
          }
        }
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        add("manifest", RUN_FILES.manifest, `not JSON: ${error.message}`);
      }
    }
    // The manifest's valid nodes vouch for journal lines that hold exactly them (see KnownNodes).
    const manifestTexts = plain?.texts;
    const journal = journalBytes instanceof Uint8Array
      ? parseJournal(
        journalBytes,
        plain && {
          text: (i) => plain.texts[i],
          node: (i) => plain.manifest.nodes[i],
        },
      )
      : undefined;
    for (const p of later) add(...p);
    if (journalBytes === "absent") add("missing", RUN_FILES.journal, "the run has no journal");
    if (!journal) return;
    this.#journal = journal;
    for (const p of journal.problems) add("journal", RUN_FILES.journal, p);
    const manifest = this.#manifest;
    if (!manifest) return;
    if (journal.sha256 !== manifest.journal.sha256 || journal.lines !== manifest.journal.lines) {
      add("journal", RUN_FILES.journal, "does not match the digest and line count recorded in manifest.json");
    }
    if (journal.header) {
      const fromManifest = RunHeaderSchema.parse(manifest);
      if (canonicalJson(fromManifest) !== canonicalJson(journal.header)) {
        add("manifest", "manifest.json header", "differs from the journal's header line");
      }
    }
    const count = Math.max(journal.nodes.length, manifest.nodes.length);
    for (let i = 0; i < count; i++) {
      const a = journal.nodes[i];
      const b = manifest.nodes[i];
      if (!a || !b) {
        add(
          "manifest",
          `node #${i}`,
          a ? "in the journal but not in manifest.json" : "in manifest.json only",
        );
      } else if (
        (journal.nodeTexts[i] ?? canonicalJson(a)) !== (manifestTexts?.[i] ?? canonicalJson(b))
      ) {
        add("manifest", nodeName(b, i), "differs between manifest.json and the journal");
      }
    }
    if (canonicalJson(journal.files) !== canonicalJson(manifest.files)) {
      add("manifest", "manifest.json files", "differs from the files recorded in the journal");
    }
  }

  get #nodes(): Node[] {
    return this.#manifest?.nodes ?? this.#journal?.nodes ?? [];
  }

  get #files(): Record<string, string> {
    return this.#manifest?.files ?? this.#journal?.files ?? {};
  }

  /** Declared sources: the manifest's, or for an unfinished run its journal header's. */
  get #sources(): Record<string, string> {
    return this.#manifest?.sources ?? this.#journal?.header?.sources ?? {};
  }

  /** What the later phases need of the records alone: node keys, published files' and program hashes. */
  #prepare(): void {
    const texts = this.#nodeTexts;
    this.#keys = this.#nodes.map((node, i) =>
      texts
        ? sha256Hex(keyTextOfCanonical(node, texts[i]))
        : nodeKey(node.stage, node.version, node.params, node.inputs)
    );
    for (const name of Object.keys(this.#files)) {
      const entry = this.#top.get(name);
      if (entry?.info.isFile) this.#fileDigests.set(name, this.#hashFile(name, entry.info));
    }
    this.#referenced = this.#referencedBlobs();
    const program = this.#sources[PROGRAM_SOURCE_NAME];
    if (program !== undefined) {
      const info = this.#lstat(blobRelativePath(program));
      if (info?.isFile) this.#programEarly = { ino: info.ino, problems: this.#programSourceProblems(info) };
    }
  }

  #hashFile(name: string, info: EntryInfo): FileRead {
    try {
      return {
        digest: hashRegularFileSync(join(this.#run, name), info, this.#buffer ??= new Uint8Array(1 << 20)),
      };
    } catch (error) {
      if (!(error instanceof UnsafeFileError)) throw error;
      return { unsafe: error.reason };
    }
  }

  /** The entry of `rel` when it is a sound blob's path (kept out of the entries). */
  #soundBlobEntry(rel: string): Entry | undefined {
    const hash = rel.startsWith(`${BLOB_ROOT}/`) ? rel.slice(BLOB_ROOT.length + 1).replace("/", "") : "";
    if (typeof this.#blobs.get(hash) !== "number" || blobRelativePath(hash) !== rel) return undefined;
    const info = this.#lstat(rel);
    return info && { rel, info, hash };
  }

  #lstat(rel: string): EntryInfo | undefined {
    try {
      return Deno.lstatSync(join(this.#run, rel));
    } catch (error) {
      if (!isFsError(error)) throw error;
    }
  }

  /** Every blob the records name. */
  #referencedBlobs(): Set<string> {
    const referenced = new Set<string>([...Object.values(this.#files), ...Object.values(this.#sources)]);
    for (const node of this.#nodes) {
      for (const name in node.inputs) referenced.add(node.inputs[name]);
      for (const name in node.outputs) referenced.add(node.outputs[name]);
      for (const hash of node.requests) referenced.add(hash);
    }
    return referenced;
  }

  /** Phase 4: sources, nodes and their references; keys; the DAG. */
  #dag(add: (kind: ProblemKind, subject: string, detail: string) => void): void {
    const has = (hash: string) => this.#present.has(hash);
    const nodes = this.#nodes;
    for (const [name, hash] of Object.entries(this.#sources)) {
      if (!has(hash)) add("missing", `source ${name}`, `blob ${hash} is not in the store`);
    }
    const producedAt = new Map<string, number>();
    nodes.forEach((node, index) => {
      for (const output in node.outputs) {
        const hash = node.outputs[output];
        if (!producedAt.has(hash)) producedAt.set(hash, index);
      }
    });
    const sourceHashes = new Set(Object.values(this.#sources));
    const keys = new Map<string, number>();
    nodes.forEach((node, index) => {
      this.stats.nodes_checked++;
      let named: string | undefined;
      const name = () => named ??= nodeName(node, index);
      const expected = this.#keys[index] ?? nodeKey(node.stage, node.version, node.params, node.inputs);
      if (expected !== node.key) add("key_mismatch", name(), `recomputed key is ${expected}`);
      const earlier = keys.get(node.key);
      if (earlier !== undefined) add("manifest", name(), `same key as node #${earlier}`);
      keys.set(node.key, index);
      for (const input in node.inputs) {
        const hash = node.inputs[input];
        if (!has(hash)) add("missing", `${name()} input ${input}`, `blob ${hash} is not in the store`);
        if (sourceHashes.has(hash)) continue;
        const producer = producedAt.get(hash);
        if (producer === undefined) {
          add(
            "dangling",
            `${name()} input ${input}`,
            `blob ${hash} was produced by no node and is no declared source`,
          );
        } else if (producer >= index) {
          add(
            "cycle",
            `${name()} input ${input}`,
            `produced only by node #${producer}, which is not earlier`,
          );
        }
      }
      const declared = this.#declaredOutputs?.(node.stage);
      for (const output in node.outputs) {
        const hash = node.outputs[output];
        if (!has(hash)) add("missing", `${name()} output ${output}`, `blob ${hash} is not in the store`);
        if (declared !== undefined && !declared.includes(output)) {
          add(
            "undeclared_output",
            `${name()} output ${output}`,
            `stage ${node.stage} declares no such output`,
          );
        }
      }
      for (let i = 0; i < node.requests.length; i++) {
        const hash = node.requests[i];
        if (!has(hash)) add("missing", `${name()} request ${i}`, `blob ${hash} is not in the store`);
      }
    });
  }

  /** The changed files of the program's source kept in the run (an unreadable blob is the blobs phase's). */
  #programSourceProblems(info: EntryInfo | undefined): { subject: string; detail: string }[] {
    const hash = this.#sources[PROGRAM_SOURCE_NAME];
    const header = this.#manifest ?? this.#journal?.header;
    if (hash === undefined || header === undefined || !info?.isFile) return [];
    let bytes: Uint8Array;
    try {
      bytes = readRegularFileSync(join(this.#run, blobRelativePath(hash)), info, MAX_RECORD_FILE_BYTES);
    } catch (error) {
      if (!(error instanceof UnsafeFileError)) throw error;
      return [];
    }
    return programSourceProblems(bytes, header.program.source_hash);
  }

  /**
   * Whether the published file `name` (blob `hash`) is an output named as the file, the `file` output of a node
   * whose params name it, or a declared source.
   */
  #publishedByNode(name: string, hash: string): boolean {
    for (const node of this.#nodes) {
      const outputs = node.outputs;
      if (Object.hasOwn(outputs, name) && outputs[name] === hash) return true;
      const params = node.params;
      if (
        Object.hasOwn(outputs, "file") && outputs.file === hash && params !== null &&
        typeof params === "object" &&
        Object.hasOwn(params, "name") && (params as { name: unknown }).name === name
      ) return true;
    }
    return Object.values(this.#sources).includes(hash);
  }

  /** Phase 5: published files match their blobs and are node outputs; nothing unknown is in the run. */
  async #checkFiles(add: (kind: ProblemKind, subject: string, detail: string) => void): Promise<void> {
    const program = this.#sources[PROGRAM_SOURCE_NAME];
    const programBlob = program === undefined ? undefined : this.#blobs.get(program);
    if (programBlob !== undefined) {
      const info = typeof programBlob === "number" ? undefined : programBlob.info;
      const early = this.#programEarly && (!info || this.#programEarly.ino === info.ino)
        ? this.#programEarly.problems
        : undefined;
      for (const p of early ?? this.#programSourceProblems(info ?? this.#lstat(blobRelativePath(program)))) {
        add("altered", p.subject, p.detail);
      }
    }
    const files = this.#files;
    for (const [name, hash] of Object.entries(files)) {
      if (!this.#present.has(hash)) add("missing", `file ${name}`, `its blob ${hash} is not in the store`);
      if (!this.#publishedByNode(name, hash)) {
        add(
          "not_node_output",
          `file ${name}`,
          `its blob ${hash} is no output ${JSON.stringify(name)} of a node, nor a declared source`,
        );
      }
      const entry = this.#entries.get(name) ?? this.#soundBlobEntry(name);
      if (!entry) {
        add("missing", `file ${name}`, "listed but not present");
        continue;
      }
      if (!entry.info.isFile) {
        add("not_regular", `file ${name}`, await this.#describeIrregular(entry));
        continue;
      }
      const read = this.#fileDigests.get(name) ?? this.#hashFile(name, entry.info);
      if (read.unsafe !== undefined) add("unreadable", `file ${name}`, read.unsafe);
      else if (read.digest !== hash) {
        add("file_mismatch", `file ${name}`, `content hashes to ${read.digest}, recorded ${hash}`);
      }
    }
    const sealed = this.#entries.has(RUN_FILES.manifest);
    for (const { rel, info, hash } of this.#entries.values()) {
      if (
        hash !== undefined || rel === RUN_FILES.journal || rel === RUN_FILES.manifest ||
        Object.hasOwn(files, rel)
      ) {
        continue;
      }
      if (rel === RUN_FILES.lock && info.isFile) {
        if (sealed) {
          add("unknown_file", rel, "a writer's lock left in a sealed run (the writer died while sealing)");
        }
        continue;
      }
      if (rel.startsWith(`${RUN_FILES.objects}/tmp/`)) {
        add("unknown_file", rel, "leftover temp file of an interrupted blob write");
      } else if (rel.startsWith(`${RUN_FILES.objects}/`)) {
        add("unknown_file", rel, info.isFile ? "not a blob name" : `not a blob name (a ${entryKind(info)})`);
      } else {add(
          "unknown_file",
          rel,
          info.isFile ? "not part of the run" : `not part of the run (a ${entryKind(info)})`,
        );}
    }
    if (this.#manifest) {
      const referenced = this.#referenced ?? this.#referencedBlobs();
      for (const hash of this.#blobs.keys()) {
        if (!referenced.has(hash)) add("unknown_file", blobRelativePath(hash), "blob referenced by nothing");
      }
    }
  }
}

/** A published file's hash, or why it could not be read. */
type FileRead = { digest?: string; unsafe?: string };

/** A manifest every node of which passed the plain check, with each node's canonical text. */
interface PlainManifest {
  manifest: Manifest;
  texts: string[];
}

/** The manifest as `ManifestSchema` would return it when every node is plain; else undefined (the schema decides). */
function plainManifest(value: unknown): PlainManifest | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const nodes = (value as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return undefined;
  const head = ManifestSchema.safeParse({ ...value, nodes: [] });
  if (!head.success) return undefined;
  const texts: string[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node: unknown = nodes[i];
    if (!(i in nodes) || !isPlainNode(node)) return undefined;
    try {
      texts.push(canonicalJson(node));
    } catch (error) {
      if (error instanceof NotIJsonError) return undefined;
      throw error;
    }
  }
  return { manifest: { ...head.data, nodes: nodes as Node[] }, texts };
}

/** Whether a file's status changed over 2 s after its content (a chmod; `ctime` is to the second). */
function changedAfterWritten(info: EntryInfo): boolean {
  if (!info.mtime || !info.ctime) return false;
  return info.ctime.getTime() - info.mtime.getTime() > 2000;
}

/**
 * Verifies a run directory and collects every problem (see {@link RunChecker}).
 * @example
 * ```ts ignore
 * const report = await verifyRun("runs/demo-hotpot");
 * if (!report.ok) for (const p of report.problems) console.error(p.kind, p.subject, p.detail);
 * ```
 */
export async function verifyRun(runPath: string, options: CheckOptions = {}): Promise<VerifyReport> {
  const checker = new RunChecker(runPath, options);
  const problems: Problem[] = [];
  for await (const problem of checker.check()) problems.push(problem);
  return { run: runPath, ok: problems.length === 0, ...checker.stats, problems, notes: checker.notes };
}

/** Human-readable report lines. */
export function formatVerifyReport(report: VerifyReport): string {
  const lines = [
    `verify ${report.run}: ${report.blobs_checked} blobs (${report.bytes_checked} bytes), ${report.nodes_checked} nodes`,
  ];
  for (const p of report.problems) lines.push(`  ${formatProblem(p)}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  lines.push(report.ok ? "ok: every check holds" : `FAILED: ${report.problems.length} problem(s)`);
  return lines.join("\n");
}

/** One problem as one line: `kind: subject: detail`. */
export function formatProblem(problem: Problem): string {
  // A subject or detail may quote a file name found in the folder: its controls escaped.
  return `${problem.kind}: ${terminalSafe(problem.subject)}: ${terminalSafe(problem.detail)}`;
}
