/**
 * The program's identity for manifests: name, version, and the SHA-256 of its source files' `[path, sha256]`
 * list, read synchronously once per process.
 * @module
 */
import { join, relative } from "node:path";
import { assetPath } from "./assets.ts";
import { canonicalHash, sha256Hex } from "./store/hash.ts";
import { PROGRAM } from "./version.ts";
import { coveredBySourceHash, programSourceBytes, type SourceFile } from "./store/program_source.ts";

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) tsFiles(path, out);
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

function adapterFiles(root: string): string[] {
  try {
    return [...Deno.readDirSync(join(root, "adapters"))]
      .filter((entry) => entry.isFile && entry.name.endsWith(".py"))
      .map((entry) => join(root, "adapters", entry.name));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/** The program's source files under `root` (the hashed ones and the adapters), with SHA-256 and text, by path. */
function sourceFiles(root: string): SourceFile[] {
  const paths = [
    ...tsFiles(join(root, "src")),
    join(root, "main.ts"),
    join(root, "deno.lock"),
    ...adapterFiles(root),
  ];
  const files: SourceFile[] = [];
  for (const file of paths) {
    try {
      const bytes = Deno.readFileSync(file);
      files.push({ path: relative(root, file), sha256: sha256Hex(bytes), bytes });
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
