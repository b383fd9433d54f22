/**
 * `compaction-bench hotpot generate`: the demo's deterministic HotpotQA-like records as Parquet or JSON.
 * @module
 */
import { dirname, extname } from "node:path";
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import { DEMO_DATA_SEED, generateHotpotRecords } from "../../data/hotpot_generate.ts";
import { toOfficialHotpotJson } from "../../data/hotpot_json.ts";
import { hotpotParquetBytes } from "../../data/hotpot_parquet_write.ts";
import { sha256Hex } from "../../store/hash.ts";
import { writeFileAtomic } from "../../store/run_dir.ts";
import { parseOptions, printHelp, refuseExisting } from "../args.ts";
import { intOption } from "../numbers.ts";
import { CLI } from "../../core/program_name.ts";

const HELP = `${CLI} hotpot generate --records N --output FILE [--seed S]

Writes N generated HotpotQA distractor records (half bridge, half comparison; ten articles each, answers and
supporting facts correct by construction) for dry runs and scale tests. The layout follows the extension:
.parquet (Hugging Face hotpot_qa/distractor layout) or .json (official HotpotQA layout). Same N and seed,
same bytes. An existing FILE is refused.

Options:
  --records N          records to generate (1–1,000,000)
  -o, --output FILE    output file, .parquet or .json (--out is the same option, kept for old scripts)
  --seed S             generator seed (default ${DEMO_DATA_SEED}, the demo data's)`;

export async function hotpotGenerateCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("hotpot generate", argv, {
    records: intOption(1, 1_000_000).optional(),
    output: z.string().min(1).optional(),
    out: z.string().min(1).optional(),
    seed: z.string().min(1, "must not be empty").optional(),
  });
  if (options.help) return printHelp(HELP);
  if (positionals.length > 0) {
    throw new UsageError(`hotpot generate: unexpected argument '${positionals[0]}'`);
  }
  if (options.records === undefined) throw new UsageError("hotpot generate: --records N is required");
  if (options.output !== undefined && options.out !== undefined) {
    throw new UsageError("hotpot generate: --output and --out are the same option; give one");
  }
  const out = options.output ?? options.out;
  if (out === undefined) throw new UsageError("hotpot generate: --output FILE is required");
  const kind = extname(out).toLowerCase();
  if (kind !== ".parquet" && kind !== ".json") {
    throw new UsageError(`--output ${out}: unknown file type (expected .parquet or .json)`);
  }
  await assertWritable(out);
  const records = generateHotpotRecords(options.records, options.seed ?? DEMO_DATA_SEED);
  const bytes = kind === ".parquet"
    ? hotpotParquetBytes(records)
    : new TextEncoder().encode(JSON.stringify(toOfficialHotpotJson(records)) + "\n");
  await writeFileAtomic(out, bytes);
  console.log(`${records.length} records (${kind.slice(1)}) written to ${out}`);
  console.log(`sha256 ${sha256Hex(bytes)}`);
  return 0;
}

/** Refuses an existing output file or a missing parent directory before any work. */
async function assertWritable(out: string): Promise<void> {
  await refuseExisting(out, `--output ${out}: already exists; generate never overwrites a file`);
  const parent = dirname(out);
  const info = await Deno.stat(parent).catch((error) => {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`--output ${out}: directory ${parent} not found`);
    }
    throw error;
  });
  if (!info.isDirectory) throw new UsageError(`--output ${out}: ${parent} is not a directory`);
}
