/**
 * The program's identity for manifests: name, version, and the SHA-256 of its source (every `.ts` file under
 * `src/`, `main.ts` and `deno.lock` — which pins every npm dependency by integrity hash — as a canonical list
 * of `[path, sha256]` sorted by path). It works from a checkout and from a compiled binary that embeds `src/`,
 * `main.ts` and `deno.lock`.
 *
 * The files are listed and read with synchronous calls, once per process: per-file async reads cost several
 * times the CPU of every start-up.
 *
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

/**
 * The program's source files under `root` (those the source hash covers, and the adapters), each with its
 * SHA-256 and text, sorted by path.
 */
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

function programFiles(): SourceFile[] {
  files ??= sourceFiles(assetPath(""));
  return files;
}

/**
 * The program-source blob every run stores as its source `program` (see store/program_source.ts): the files
 * read once per process, the same reading that hashes them for {@link programIdentity}, compressed once per
 * process (the demo makes several runs in one).
 */
export function programSourceBlob(): Uint8Array {
  blob ??= programSourceBytes(programFiles());
  return blob;
}

let blob: Uint8Array | undefined;

let cached: Promise<{ name: string; version: string; source_hash: string }> | undefined;

/** Name, version and source hash of this program (computed once per process). */
export function programIdentity(): Promise<{ name: string; version: string; source_hash: string }> {
  cached ??= Promise.resolve().then(() => ({
    ...PROGRAM,
    source_hash: canonicalHash(
      programFiles().filter((file) => coveredBySourceHash(file.path)).map((file) => [file.path, file.sha256]),
    ),
  }));
  return cached;
}
