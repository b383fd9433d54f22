/**
 * `verify --rederive`: re-executes every node of a finished run whose stage calls no provider (selection,
 * contexts, scores, aggregate, report, …) from the inputs stored in the run, through the stage declarations,
 * and checks that every output is byte-identical to the stored blob (and the status and reason equal). Plain
 * `verify` proves every blob is intact; this proves the published numbers follow from them.
 *
 * @module
 */
import { BlobStore } from "../store/blob_store.ts";
import { sha256Hex } from "../store/hash.ts";
import type { Manifest, Node } from "../store/manifest.ts";
import { readManifest } from "../store/run_dir.ts";
import {
  type AnyStageDef,
  type BlobKind,
  type InputKind,
  inputKind,
  outputBytes,
  readInputBlob,
  readsInput,
} from "./stage.ts";

/** The stage declarations a run may hold, and the environment their bodies need. */
export interface StageRegistry {
  /** The declaration of a stage, by name. */
  stage(name: string): AnyStageDef | undefined;
  /** What the bodies of a run's stages need (tokenizer, fixtures), built from the run itself. */
  environment(manifest: Manifest, store: BlobStore): Promise<unknown>;
}

/** One node that was not re-derived to the same bytes. */
export interface RederiveProblem {
  key: string;
  label: string;
  stage: string;
  message: string;
}

/** What `--rederive` found. */
export interface RederiveReport {
  run: string;
  /** Nodes re-executed (identical or not). */
  rederived: number;
  /** Nodes of provider (or timed) stages, not re-executed. */
  provider: number;
  problems: RederiveProblem[];
  ok: boolean;
}

/** Input blobs kept read at once while re-deriving. */
const READ_CACHE_LIMIT = 2_000;

/** The hash of a value stored as an output of `kind`. */
function outputHash(value: unknown, kind: BlobKind): string {
  return sha256Hex(outputBytes(value, kind));
}

/** Re-derives every provider-free node of the finished run `dir`. */
export async function rederiveRun(dir: string, registry: StageRegistry): Promise<RederiveReport> {
  const manifest = await readManifest(dir);
  const store = new BlobStore(dir);
  const env = await registry.environment(manifest, store);
  const report: RederiveReport = { run: dir, rederived: 0, provider: 0, problems: [], ok: true };
  const cache = new Map<string, unknown>();
  const read = async (hash: string, kind: InputKind): Promise<unknown> => {
    const id = `${kind}:${hash}`;
    if (!cache.has(id)) {
      const value = await readInputBlob(store, hash, kind);
      // Bounded: the oldest entry goes first (inputs shared by many nodes are read again at worst).
      if (cache.size >= READ_CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(id, value);
    }
    return cache.get(id);
  };
  const problem = (node: Node, message: string) =>
    report.problems.push({ key: node.key, label: node.label, stage: node.stage, message });
  for (const node of manifest.nodes) {
    const def = registry.stage(node.stage);
    if (!def) {
      problem(node, `no declaration of stage ${node.stage}: it cannot be re-derived`);
      continue;
    }
    if (def.provider) {
      report.provider++;
      continue;
    }
    if (def.version !== node.version) {
      problem(
        node,
        `stage ${node.stage} is at version ${def.version}; the node was made by version ${node.version}`,
      );
      continue;
    }
    const params = def.params.safeParse(node.params);
    if (!params.success) {
      problem(node, `params do not match the declaration: ${params.error.issues[0]?.message}`);
      continue;
    }
    report.rederived++;
    try {
      const inputs: Record<string, unknown> = {};
      for (const [name, hash] of Object.entries(node.inputs)) {
        inputs[name] = readsInput(def, name) ? await read(hash, inputKind(def, name)) : null;
      }
      // The body gets the params exactly as recorded (they entered the key as they are).
      // Lazy inputs are read when the body asks, and not cached: a big aggregate re-derives in flat memory.
      const load = async (name: string) => {
        const hash = node.inputs[name];
        if (hash === undefined) throw new Error(`${node.stage}: no input named ${name}`);
        return await readInputBlob(store, hash, inputKind(def, name));
      };
      const outcome = await def.run({
        params: node.params,
        inputs,
        hashes: node.inputs,
        key: node.key,
        env,
        load,
      });
      const names = Object.keys(outcome.outputs).sort();
      const stored = Object.keys(node.outputs).sort();
      if (names.join("\n") !== stored.join("\n")) {
        problem(
          node,
          `re-derived outputs [${names.join(", ")}] differ from the stored [${stored.join(", ")}]`,
        );
        continue;
      }
      for (const name of names) {
        const value = (outcome.outputs as Record<string, unknown>)[name];
        const hash = outputHash(value, def.outputs[name]?.kind ?? "json");
        if (hash !== node.outputs[name]) {
          problem(node, `output ${name} differs: stored ${node.outputs[name]}, re-derived ${hash}`);
        }
      }
      const status = outcome.status ?? "ok";
      if (status !== node.status || (outcome.reason ?? undefined) !== (node.reason ?? undefined)) {
        problem(
          node,
          `status differs: stored ${node.status} (${node.reason ?? ""}), re-derived ${status} ` +
            `(${outcome.reason ?? ""})`,
        );
      }
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      problem(node, `re-execution failed: ${error.message}`);
    }
  }
  report.ok = report.problems.length === 0;
  return report;
}

/** The report as lines for people: one per problem, then the count. */
export function formatRederiveReport(report: RederiveReport): string {
  const lines = report.problems.map((p) => `${p.stage} node ${p.key} (${p.label}): ${p.message}`);
  lines.push(
    `rederive ${report.run}: re-derived ${report.rederived} node(s), ${report.provider} provider node(s) not ` +
      `re-executed; ${
        report.ok ? "ok: every output is byte-identical" : `${report.problems.length} problem(s)`
      }`,
  );
  return lines.join("\n");
}
