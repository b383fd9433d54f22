/**
 * A finished run opened for reuse (`--frozen-run`, `--retry-failed`): nodes by key and label, its blob store.
 * @module
 */
import { BlobStore } from "../store/blob_store.ts";
import type { Manifest, Node } from "../store/manifest.ts";
import { readManifest } from "../store/run_dir.ts";
import { sha256Hex } from "../store/hash.ts";

/** A frozen run indexed by node key (and by label, for check-only comparisons). */
export class FrozenRun {
  readonly path: string;
  readonly manifest: Manifest;
  readonly manifestHash: string;
  readonly store: BlobStore;
  readonly #byKey = new Map<string, Node>();
  readonly #byLabel = new Map<string, Node>();

  private constructor(path: string, manifest: Manifest, manifestHash: string) {
    this.path = path;
    this.manifest = manifest;
    this.manifestHash = manifestHash;
    this.store = new BlobStore(path);
    for (const node of manifest.nodes) {
      this.#byKey.set(node.key, node);
      this.#byLabel.set(node.label, node);
    }
  }

  /** Opens a finished run (its manifest must be valid). */
  static async open(path: string): Promise<FrozenRun> {
    const manifest = await readManifest(path);
    const bytes = await Deno.readFile(`${path}/manifest.json`);
    return new FrozenRun(path, manifest, sha256Hex(bytes));
  }

  byKey(key: string): Node | undefined {
    return this.#byKey.get(key);
  }

  byLabel(label: string): Node | undefined {
    return this.#byLabel.get(label);
  }

  nodesOf(stage: string): Node[] {
    return this.manifest.nodes.filter((n) => n.stage === stage);
  }
}
