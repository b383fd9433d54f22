/**
 * Joining finished shards of one protocol into a new run: {@link planMerge} checks, {@link writeMerged} writes.
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../errors.ts";
import { MAX_RUN_FILE_BYTES, readInputFile } from "../fs_input.ts";
import { BlobStore } from "./blob_store.ts";
import { canonicalJson } from "./canonical.ts";
import { sha256Hex } from "./hash.ts";
import type { Manifest, Node, RunHeader } from "./manifest.ts";
import { readManifest, RunDir } from "./run_dir.ts";

export interface ShardRun {
  path: string;
  manifest: Manifest;
  manifestHash: string;
  shard: { index: number; count: number };
  store: BlobStore;
}

export interface MergePlan {
  shards: ShardRun[];
  nodes: { node: Node; from: ShardRun }[];
}

async function readShard(path: string): Promise<ShardRun> {
  const manifest = await readManifest(path);
  const bytes = await readInputFile(join(path, "manifest.json"), undefined, MAX_RUN_FILE_BYTES);
  if (manifest.shard === undefined) {
    throw new UsageError(`${path}: not a shard (its header has no shard; run it with --shard K/N)`);
  }
  return {
    path,
    manifest,
    manifestHash: sha256Hex(bytes),
    shard: manifest.shard,
    store: new BlobStore(path),
  };
}

const SAME: { field: string; what: string; pick: (m: Manifest) => unknown }[] = [
  { field: "format", what: "run formats", pick: (m) => m.format },
  { field: "suite", what: "suites", pick: (m) => m.suite },
  { field: "program", what: "programs", pick: (m) => m.program },
  { field: "protocol", what: "protocols", pick: (m) => m.protocol },
  { field: "tokenizer", what: "tokenizers", pick: (m) => m.tokenizer },
  { field: "sources", what: "sources (corpora or datasets)", pick: (m) => m.sources },
  { field: "shard.count", what: "shard counts", pick: (m) => m.shard?.count },
];

/** Reads and checks the shards (leaving out nodes of `skipStages`); a {@link UsageError} names the runs. */
export async function planMerge(
  paths: string[],
  skipStages: ReadonlySet<string> = new Set(),
): Promise<MergePlan> {
  if (paths.length < 1) throw new UsageError("merge: name at least one shard run");
  const seenPaths = new Set<string>();
  for (const p of paths) {
    if (seenPaths.has(p)) throw new UsageError(`merge: ${p} is named twice`);
    seenPaths.add(p);
  }
  const shards: ShardRun[] = [];
  for (const p of paths) shards.push(await readShard(p));
  const first = shards[0];
  for (const { field, what, pick } of SAME) {
    const expected = canonicalJson(pick(first.manifest) ?? null);
    const other = shards.find((s) => canonicalJson(pick(s.manifest) ?? null) !== expected);
    if (other !== undefined) {
      throw new UsageError(
        `merge: shards of different ${what}: ${first.path} and ${other.path} differ in ${field}`,
      );
    }
  }
  const count = first.shard.count;
  const byIndex = new Map<number, ShardRun>();
  for (const s of shards) {
    const twin = byIndex.get(s.shard.index);
    if (twin !== undefined) {
      throw new UsageError(
        `merge: duplicate shard ${s.shard.index}/${count}: ${twin.path} and ${s.path} (or the same run twice)`,
      );
    }
    byIndex.set(s.shard.index, s);
  }
  const gaps = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (gaps.length > 0) {
    throw new UsageError(`merge: missing shard(s) ${gaps.map((i) => `${i}/${count}`).join(", ")}`);
  }
  shards.sort((a, b) => a.shard.index - b.shard.index);
  const nodes: MergePlan["nodes"] = [];
  const byKey = new Map<string, { node: Node; from: ShardRun }>();
  const conflicts: string[] = [];
  for (const from of shards) {
    for (const node of from.manifest.nodes) {
      if (skipStages.has(node.stage)) continue;
      const seen = byKey.get(node.key);
      if (seen === undefined) {
        const entry = { node, from };
        byKey.set(node.key, entry);
        nodes.push(entry);
        continue;
      }
      const same = canonicalJson(seen.node.outputs) === canonicalJson(node.outputs) &&
        seen.node.status === node.status;
      if (!same) {
        conflicts.push(`${node.label} (key ${node.key.slice(0, 12)}: ${seen.from.path} vs ${from.path})`);
      }
    }
  }
  if (conflicts.length > 0) {
    const shown = conflicts.slice(0, 5).join("; ");
    throw new UsageError(
      `merge: ${conflicts.length} node(s) with the same key but different outputs: ${shown}${
        conflicts.length > 5 ? "; …" : ""
      }`,
    );
  }
  return { shards, nodes };
}

/** Creates the merged run at `out` and fills it, left open for the suite to export and seal it. */
export async function writeMerged(
  out: string,
  plan: MergePlan,
  command: string[],
  options: Record<string, unknown> = {},
): Promise<RunDir> {
  const first = plan.shards[0];
  const sources: Record<string, Uint8Array> = {};
  for (const [name, hash] of Object.entries(first.manifest.sources)) {
    sources[name] = await first.store.get(hash);
  }
  const { format, program, suite, tokenizer, protocol } = first.manifest;
  const header: Omit<RunHeader, "sources"> = {
    format,
    program,
    suite,
    invocation: { command, options },
    tokenizer,
    protocol,
    created: new Date().toISOString(),
    merged_from: plan.shards.map((s) => ({ run: s.path, manifest: s.manifestHash, shard: s.shard })),
  };
  const run = await RunDir.create(out, header, sources);
  try {
    for (const { node, from } of plan.nodes) {
      for (const hash of [...Object.values(node.inputs), ...Object.values(node.outputs), ...node.requests]) {
        await run.store.copyFrom(from.store, hash);
      }
      await run.recordNode(node);
    }
  } catch (error) {
    await run.abandon();
    await Deno.remove(out, { recursive: true });
    throw error;
  }
  return run;
}
