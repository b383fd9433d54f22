/**
 * `compaction-bench source RUN [--extract DIR]`: lists (or writes out) the program source files a run keeps.
 * @module
 */
import { dirname, join } from "node:path";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { checkNewOutputPath, readInputFile, statInputDirectory } from "../fs_input.ts";
import { blobRelativePath } from "../store/blob_store.ts";
import { sha256Hex } from "../store/hash.ts";
import { parseProgramSource, PROGRAM_SOURCE_NAME, programSourceProblems } from "../store/program_source.ts";
import { parseOptions, printHelp } from "./args.ts";
import { CLI } from "../core/program_name.ts";
import { parseJson, parseJsonBytes } from "../core/json_read.ts";

const HELP = `Usage: ${CLI} source RUN [--extract DIR]

Lists the program source files RUN keeps (src/, main.ts, deno.lock and the adapters, as the program that made
the run read them), or writes them under DIR (a new folder). Exit 2 when RUN keeps none or they do not check.`;

const MAX_SOURCE_BYTES = 256 * 1024 ** 2;

/** The header's sources and source hash (the manifest, or an unfinished run's journal). */
async function runHeader(run: string): Promise<{ sources: Record<string, string>; sourceHash: string }> {
  const Header = z.object({
    program: z.object({ source_hash: z.string() }),
    sources: z.record(z.string(), z.string()),
  });
  let header: unknown;
  try {
    header = parseJsonBytes(await readInputFile(join(run, "manifest.json"), "RUN"));
  } catch (error) {
    if (!(error instanceof UsageError) || !/not found/.test(error.message)) throw error;
    const journal = new TextDecoder().decode(await readInputFile(join(run, "journal.jsonl"), "RUN"));
    header = (parseJson(journal.slice(0, journal.indexOf("\n"))) as { header?: unknown }).header;
  }
  const parsed = Header.safeParse(header);
  if (!parsed.success) throw new UsageError(`${run}: its header has no program.source_hash and sources`);
  return { sources: parsed.data.sources, sourceHash: parsed.data.program.source_hash };
}

/**
 * Runs `source`; returns the exit code.
 * @example
 * ```ts
 * await sourceCommand(["runs/sweep-1", "--extract", "/tmp/code"]);
 * ```
 */
export async function sourceCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("source", argv, { extract: z.string().min(1).optional() });
  if (options.help) return printHelp(HELP);
  if (positionals.length !== 1) {
    throw new UsageError(`source: give one run folder (see '${CLI} source --help')`);
  }
  const run = positionals[0];
  await statInputDirectory(run, "RUN");
  const { sources, sourceHash } = await runHeader(run);
  const hash = sources[PROGRAM_SOURCE_NAME];
  if (hash === undefined) {
    throw new UsageError(`${run}: the run keeps no program source (made by a program before runs kept it)`);
  }
  const bytes = await readInputFile(join(run, blobRelativePath(hash)), "RUN", MAX_SOURCE_BYTES);
  if (sha256Hex(bytes) !== hash) throw new UsageError(`${run}: the program source blob ${hash} is altered`);
  const problems = programSourceProblems(bytes, sourceHash);
  if (problems.length > 0) {
    throw new UsageError(`${run}: ${problems.map((p) => `${p.subject}: ${p.detail}`).join("; ")}`);
  }
  const files = parseProgramSource(bytes);
  if (options.extract === undefined) {
    for (const file of files) {
      console.log(`${file.sha256}  ${String(file.bytes.length).padStart(8)}  ${file.path}`);
    }
    const unpacked = files.reduce((sum, file) => sum + file.bytes.length, 0);
    console.log(
      `${files.length} files, ${unpacked} bytes (blob ${hash}, ${bytes.length} bytes stored); source_hash ${sourceHash}`,
    );
    return 0;
  }
  const out = options.extract;
  await checkNewOutputPath(out, "--extract");
  for (const file of files) {
    const path = join(out, file.path);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeFile(path, file.bytes, { createNew: true });
  }
  console.log(`${files.length} files written under ${out}`);
  return 0;
}
