/**
 * The auditor's checker. It rehashes every blob, resolves every reference of the manifest and the journal,
 * recomputes every node key, checks that the DAG has no cycle and that every input was produced by an earlier
 * node or is a declared source, and checks every file in the run directory. Like restic's checker it names
 * every problem it finds, not just the first.
 *
 * @module
 */
import { join } from "node:path";
import { blobRelativePath } from "./blob_store.ts";
import { canonicalJson } from "./canonical.ts";
import { sha256File } from "./hash.ts";
import { readJournal } from "./journal.ts";
import { type Manifest, ManifestSchema, type Node, nodeKey, RunHeaderSchema } from "./manifest.ts";
import { RUN_FILES } from "./run_dir.ts";

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
  | "unfinished";

/** One problem, with the object, node or file it concerns. */
export interface Problem {
  kind: ProblemKind;
  subject: string;
  detail: string;
}

/** The outcome of verifying a run directory. */
export interface VerifyReport {
  run: string;
  ok: boolean;
  blobs_checked: number;
  bytes_checked: number;
  nodes_checked: number;
  problems: Problem[];
}

async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) out.push(...await listFiles(join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  });
  await Promise.all(workers);
  return results;
}

function nodeName(node: Node, index: number): string {
  return `node #${index} ${node.label || node.stage} (${node.key.slice(0, 12)})`;
}

/** Verifies a run directory; never throws for problems in the run, only for I/O it cannot do at all. */
export async function verifyRun(runPath: string): Promise<VerifyReport> {
  const problems: Problem[] = [];
  const add = (kind: ProblemKind, subject: string, detail: string) =>
    problems.push({ kind, subject, detail });
  const report: VerifyReport = {
    run: runPath,
    ok: false,
    blobs_checked: 0,
    bytes_checked: 0,
    nodes_checked: 0,
    problems,
  };

  // 1. Every blob: name layout and content hash.
  const present = new Set<string>();
  let all: string[] = [];
  try {
    all = await listFiles(runPath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      add("missing", runPath, "run directory does not exist");
      return report;
    }
    throw error;
  }
  const blobPaths = all.filter((p) => p.startsWith(`${RUN_FILES.objects}/`));
  const otherPaths = all.filter((p) => !p.startsWith(`${RUN_FILES.objects}/`));
  const candidates: { rel: string; hash: string }[] = [];
  for (const rel of blobPaths) {
    const m = /^objects\/sha256\/([0-9a-f]{2})\/([0-9a-f]{62})$/.exec(rel);
    if (!m) {
      const detail = rel.startsWith("objects/tmp/")
        ? "leftover temp file of an interrupted blob write"
        : "not a blob name";
      add("unknown_file", rel, detail);
      continue;
    }
    candidates.push({ rel, hash: m[1] + m[2] });
  }
  await mapLimit(candidates, 4, async ({ rel, hash }) => {
    const path = join(runPath, rel);
    const [digest, info] = await Promise.all([sha256File(path), Deno.stat(path)]);
    report.blobs_checked++;
    report.bytes_checked += info.size;
    if (digest !== hash) add("altered", `blob ${hash}`, `content hashes to ${digest}`);
    present.add(hash);
  });
  const hasBlob = (hash: string) => present.has(hash);

  // 2. The manifest (a finished run has one) and the journal.
  let manifest: Manifest | undefined;
  const manifestPath = join(runPath, RUN_FILES.manifest);
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(await Deno.readTextFile(manifestPath)));
    if (parsed.success) manifest = parsed.data;
    else {
      for (const issue of parsed.error.issues) {
        add("manifest", `manifest.json field ${issue.path.join(".") || "(root)"}`, issue.message);
      }
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      add("unfinished", "manifest.json", "missing: the run never finished");
    } else if (error instanceof SyntaxError) add("manifest", "manifest.json", `not JSON: ${error.message}`);
    else throw error;
  }

  const journalPath = join(runPath, RUN_FILES.journal);
  let journalNodes: Node[] = [];
  let journalFiles: Record<string, string> = {};
  try {
    const journal = await readJournal(journalPath);
    for (const p of journal.problems) add("journal", "journal.jsonl", p);
    journalNodes = journal.nodes;
    journalFiles = journal.files;
    if (manifest) {
      if (journal.sha256 !== manifest.journal.sha256 || journal.lines !== manifest.journal.lines) {
        add("journal", "journal.jsonl", "does not match the digest and line count recorded in manifest.json");
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
        } else if (canonicalJson(a) !== canonicalJson(b)) {
          add("manifest", nodeName(b, i), "differs between manifest.json and the journal");
        }
      }
      if (canonicalJson(journal.files) !== canonicalJson(manifest.files)) {
        add("manifest", "manifest.json files", "differs from the files recorded in the journal");
      }
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) add("missing", "journal.jsonl", "the run has no journal");
    else throw error;
  }

  const nodes = manifest?.nodes ?? journalNodes;
  const files = manifest?.files ?? journalFiles;
  const sources = manifest?.sources ?? {};

  // 3. Sources, nodes and their references; keys; the DAG.
  for (const [name, hash] of Object.entries(sources)) {
    if (!hasBlob(hash)) add("missing", `source ${name}`, `blob ${hash} is not in the store`);
  }
  const producedAt = new Map<string, number>();
  nodes.forEach((node, index) => {
    for (const hash of Object.values(node.outputs)) if (!producedAt.has(hash)) producedAt.set(hash, index);
  });
  const sourceHashes = new Set(Object.values(sources));
  const keys = new Map<string, number>();
  nodes.forEach((node, index) => {
    report.nodes_checked++;
    const name = nodeName(node, index);
    const expected = nodeKey(node.stage, node.version, node.params, node.inputs);
    if (expected !== node.key) add("key_mismatch", name, `recomputed key is ${expected}`);
    const earlier = keys.get(node.key);
    if (earlier !== undefined) add("manifest", name, `same key as node #${earlier}`);
    keys.set(node.key, index);
    for (const [input, hash] of Object.entries(node.inputs)) {
      if (!hasBlob(hash)) add("missing", `${name} input ${input}`, `blob ${hash} is not in the store`);
      const producer = producedAt.get(hash);
      if (sourceHashes.has(hash)) continue;
      if (producer === undefined) {
        add(
          "dangling",
          `${name} input ${input}`,
          `blob ${hash} was produced by no node and is no declared source`,
        );
      } else if (producer >= index) {
        add("cycle", `${name} input ${input}`, `produced only by node #${producer}, which is not earlier`);
      }
    }
    for (const [output, hash] of Object.entries(node.outputs)) {
      if (!hasBlob(hash)) add("missing", `${name} output ${output}`, `blob ${hash} is not in the store`);
    }
    node.requests.forEach((hash, i) => {
      if (!hasBlob(hash)) add("missing", `${name} request ${i}`, `blob ${hash} is not in the store`);
    });
  });

  // 4. Files in the run directory: exported files must match their blobs; nothing unknown.
  for (const [name, hash] of Object.entries(files)) {
    if (!hasBlob(hash)) add("missing", `file ${name}`, `its blob ${hash} is not in the store`);
    try {
      const digest = await sha256File(join(runPath, name));
      if (digest !== hash) {
        add("file_mismatch", `file ${name}`, `content hashes to ${digest}, recorded ${hash}`);
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) add("missing", `file ${name}`, "listed but not present");
      else throw error;
    }
  }
  for (const rel of otherPaths) {
    if (rel === RUN_FILES.journal || rel === RUN_FILES.manifest || rel in files) continue;
    add("unknown_file", rel, "not part of the run");
  }
  if (manifest) {
    const referenced = new Set<string>([...Object.values(files), ...Object.values(sources)]);
    for (const node of nodes) {
      for (const h of [...Object.values(node.inputs), ...Object.values(node.outputs), ...node.requests]) {
        referenced.add(h);
      }
    }
    for (const hash of present) {
      if (!referenced.has(hash)) add("unknown_file", blobRelativePath(hash), "blob referenced by nothing");
    }
  }
  report.ok = problems.length === 0;
  return report;
}

/** Human-readable report lines. */
export function formatVerifyReport(report: VerifyReport): string {
  const lines = [
    `verify ${report.run}: ${report.blobs_checked} blobs (${report.bytes_checked} bytes), ${report.nodes_checked} nodes`,
  ];
  for (const p of report.problems) lines.push(`  ${p.kind}: ${p.subject}: ${p.detail}`);
  lines.push(report.ok ? "ok: every check holds" : `FAILED: ${report.problems.length} problem(s)`);
  return lines.join("\n");
}
