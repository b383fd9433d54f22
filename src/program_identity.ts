/**
 * The program's identity for manifests: name, version, and the SHA-256 of its source (every `.ts` file under
 * `src/`, `main.ts` and `deno.lock` — which pins every npm dependency by integrity hash — as a canonical list
 * of `[path, sha256]` sorted by path). It works from a checkout and from a compiled binary that embeds `src/`,
 * `main.ts` and `deno.lock`.
 *
 * @module
 */
import { join, relative } from "node:path";
import { assetPath } from "./assets.ts";
import { canonicalHash, sha256Hex } from "./store/hash.ts";
import { PROGRAM } from "./version.ts";

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await tsFiles(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

let cached: Promise<{ name: string; version: string; source_hash: string }> | undefined;

/** Name, version and source hash of this program (computed once per process). */
export function programIdentity(): Promise<{ name: string; version: string; source_hash: string }> {
  cached ??= (async () => {
    const root = assetPath("");
    const files = [...await tsFiles(join(root, "src")), join(root, "main.ts"), join(root, "deno.lock")];
    const entries: [string, string][] = [];
    for (const file of files) {
      try {
        entries.push([relative(root, file), sha256Hex(await Deno.readFile(file))]);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { ...PROGRAM, source_hash: canonicalHash(entries) };
  })();
  return cached;
}
