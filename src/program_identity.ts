/**
 * The program's identity for manifests: name, version, and the SHA-256 of its source files' `[path, sha256]`
 * list, read synchronously once per process.
 * @module
 */
import { assetPath } from "./assets.ts";
import { canonicalHash, sha256Hex } from "./store/hash.ts";
import { PROGRAM } from "./version.ts";
import { coveredBySourceHash, programSourceBytes, type SourceFile } from "./store/program_source.ts";

// Paths are joined as text, relative to the root as they are found: `node:path`'s join and relative normalize
// every one of the ~260 paths again (4 ms of a run's start; directory entries hold no `/`, `.` or `..`).

/** The `.ts` files under `base + dir`, as paths relative to `base` (`src/store/hash.ts`). */
function tsFiles(base: string, dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(base + dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) tsFiles(base, path, out);
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

function adapterFiles(base: string): string[] {
  try {
    return [...Deno.readDirSync(`${base}adapters`)]
      .filter((entry) => entry.isFile && entry.name.endsWith(".py"))
      .map((entry) => `adapters/${entry.name}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/** The program's source files under `root` (the hashed ones and the adapters), with SHA-256 and text, by path. */
function sourceFiles(root: string): SourceFile[] {
  const base = root.endsWith("/") ? root : `${root}/`;
  const paths = [...tsFiles(base, "src"), "main.ts", "deno.lock", ...adapterFiles(base)];
  const files: SourceFile[] = [];
  for (const path of paths) {
    try {
      const bytes = Deno.readFileSync(base + path);
      files.push({ path, sha256: sha256Hex(bytes), bytes });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

let files: SourceFile[] | undefined;
const programFiles = () => files ??= sourceFiles(assetPath(""));

let blob: Uint8Array | undefined;

/** The program-source blob every run stores as its source `program`, built once per process. */
export function programSourceBlob(): Uint8Array {
  return blob ??= programSourceBytes(programFiles());
}

let cached: Promise<{ name: string; version: string; source_hash: string }> | undefined;

/** Name, version and source hash of this program (once per process). */
export function programIdentity(): Promise<{ name: string; version: string; source_hash: string }> {
  return cached ??= Promise.resolve().then(() => ({
    ...PROGRAM,
    source_hash: canonicalHash(
      programFiles().filter((file) => coveredBySourceHash(file.path)).map((file) => [file.path, file.sha256]),
    ),
  }));
}
