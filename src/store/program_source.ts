/**
 * The program's own source kept in every run: one blob, the run's declared source `program` (bound by the run
 * header's `sources`), holding every file the header's `program.source_hash` covers (`src/**.ts`, `main.ts`,
 * `deno.lock`) and the adapters the program hands to outside engines and agents (`adapters/*.py`), each with
 * its SHA-256. `verify` checks each file's text against its recorded SHA-256 and the covered files' list
 * against the header's `source_hash`, naming a changed file; `compaction-bench source RUN` lists them or
 * writes them back out.
 *
 * The blob is JSON: `{"format": "compaction-bench/program-source@1", "files": [{"path", "sha256", "text"}]}`,
 * sorted by path (plain, not compressed: gzip cost 35-100 ms of CPU per run for 1.7 MB).
 *
 * @module
 */
import { canonicalHash, sha256Hex } from "./hash.ts";

/** The `format` of the program-source blob. */
export const PROGRAM_SOURCE_FORMAT = "compaction-bench/program-source@1";
/** The run source name of the blob. */
export const PROGRAM_SOURCE_NAME = "program";

/** One file of the program's source. */
export interface SourceFile {
  path: string;
  sha256: string;
  text: string;
}

/** Whether `path` is one of the files the header's `source_hash` covers (the adapters are not). */
export function coveredBySourceHash(path: string): boolean {
  return (path.startsWith("src/") && path.endsWith(".ts")) || path === "main.ts" || path === "deno.lock";
}

/** The blob's bytes for `files` (sorted by path here). */
export function programSourceBytes(files: readonly SourceFile[]): Uint8Array {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return new TextEncoder().encode(JSON.stringify({ format: PROGRAM_SOURCE_FORMAT, files: sorted }));
}

/** Parses a program-source blob; throws an Error saying what is wrong. */
export function parseProgramSource(bytes: Uint8Array): SourceFile[] {
  const json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
  const record = json as { format?: unknown; files?: unknown };
  if (typeof json !== "object" || json === null || record.format !== PROGRAM_SOURCE_FORMAT) {
    throw new Error(`not a ${PROGRAM_SOURCE_FORMAT} blob`);
  }
  if (!Array.isArray(record.files)) throw new Error("no files list");
  const files: SourceFile[] = [];
  for (const [index, file] of record.files.entries()) {
    const { path, sha256, text } = (file ?? {}) as Record<string, unknown>;
    if (typeof path !== "string" || typeof sha256 !== "string" || typeof text !== "string") {
      throw new Error(`files.${index}: not {path, sha256, text} strings`);
    }
    if (
      path.startsWith("/") || path.split("/").some((part) => part === ".." || part === "." || part === "")
    ) {
      throw new Error(`files.${index}.path: ${JSON.stringify(path).slice(0, 100)} is not a relative path`);
    }
    files.push({ path, sha256, text });
  }
  return files;
}

/**
 * The problems of a program-source blob against the header's `source_hash`: a file whose text does not hash
 * to its recorded SHA-256 (named), or a covered list whose hash is not the header's.
 */
export function programSourceProblems(
  bytes: Uint8Array,
  sourceHash: string,
): { subject: string; detail: string }[] {
  let files: SourceFile[];
  try {
    files = parseProgramSource(bytes);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return [{ subject: "program source", detail: error.message }];
  }
  const problems: { subject: string; detail: string }[] = [];
  for (const file of files) {
    const actual = sha256Hex(file.text);
    if (actual !== file.sha256) {
      problems.push({
        subject: `program source file ${file.path}`,
        detail: `changed: its text hashes to ${actual}, recorded ${file.sha256}`,
      });
    }
  }
  const covered = files.filter((file) => coveredBySourceHash(file.path)).map((
    file,
  ) => [file.path, file.sha256]);
  const listHash = canonicalHash(covered);
  if (listHash !== sourceHash) {
    problems.push({
      subject: "program source",
      detail: `its files' list hashes to ${listHash}, the header's program.source_hash is ${sourceHash}`,
    });
  }
  return problems;
}
