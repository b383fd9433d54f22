/**
 * `compaction-bench hotpot predictions`: one condition of a finished hotpot run as an official HotpotQA
 * prediction file (an invalid answer has none), and optionally its questions as gold records.
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import { MAX_RUN_FILE_BYTES, parseInputJson, readInputText, statInputDirectory } from "../../fs_input.ts";
import { writeFileAtomic } from "../../store/run_dir.ts";
import { readManifest } from "../../store/run_dir.ts";
import { CorpusSchema } from "../../suites/hotpot/corpus.ts";
import { parseOptions, printHelp, refuseExisting } from "../args.ts";
import { toOfficialHotpotJson } from "../../data/hotpot_json.ts";
import { intOption } from "../numbers.ts";
import { CLI } from "../../core/program_name.ts";

const HELP = `${CLI} hotpot predictions RUN --method M --output FILE [options]

Writes one condition of a finished hotpot run (a method, a generation and an answer) as an official
HotpotQA prediction file: {"answer": {id: text}, "sp": {id: [[title, sentence_id], ...]}}. Score it with
'${CLI} hotpot score --gold GOLD --pred FILE' or the official hotpot_evaluate_v1.py; with --gold-output
the run's questions are written as official gold records, so the score covers exactly the run's questions
and equals the run's own mean for that condition. A question whose answer was invalid in the run has no
prediction (the official script then scores it zero, as the run did); their number is printed.

Options:
  --method M           the method (full, jev, summary, jev+summary, or a --method name of the run)
  --generation G       the compression generation (default 0)
  --answer A           the answer index (default 0)
  --input-cap N        a ceiling of a ceiling sweep (default: the run's first ceiling; Full has none)
  -o, --output FILE    the prediction file to write (refused if it exists)
  --gold-output FILE   also write the run's questions as official HotpotQA gold JSON
  -h, --help           this help`;

const RowSchema = z.object({
  question_id: z.string(),
  method: z.string(),
  generation: z.number().int(),
  answer_index: z.number().int(),
  status: z.string(),
  input_cap: z.number().int().nullable().optional(),
  prediction: z.object({ answer: z.string(), sp: z.array(z.tuple([z.string(), z.number()])) }).nullable(),
}).loose();

export interface RunPredictions {
  answer: Record<string, string>;
  sp: Record<string, [string, number][]>;
  /** Questions whose answer was invalid (no prediction). */
  missing: string[];
}

/** The official prediction file of one condition of `rows`; a UsageError names the run's values when none match. */
export function predictionsOf(
  rows: readonly z.infer<typeof RowSchema>[],
  condition: { method: string; generation: number; answer: number; inputCap?: number },
): RunPredictions {
  const caps = [...new Set(rows.filter((r) => r.input_cap != null).map((r) => r.input_cap!))];
  const cap = condition.inputCap ?? caps[0];
  if (condition.inputCap !== undefined && !caps.includes(condition.inputCap)) {
    throw new UsageError(
      `--input-cap ${condition.inputCap}: the run has ${
        caps.length > 0 ? `ceilings ${caps.join(", ")}` : "one ceiling (no --input-cap needed)"
      }`,
    );
  }
  const chosen = rows.filter((r) =>
    r.method === condition.method && r.generation === condition.generation &&
    r.answer_index === condition.answer && (r.input_cap == null || r.input_cap === cap)
  );
  if (chosen.length === 0) {
    const values = (key: "method" | "generation" | "answer_index") =>
      [...new Set(rows.map((r) => String(r[key])))].join(", ");
    throw new UsageError(
      `no row of method ${condition.method}, generation ${condition.generation}, answer ${condition.answer}: ` +
        `the run has methods ${values("method")}; generations ${values("generation")}; answers ${
          values("answer_index")
        }`,
    );
  }
  // Without a prototype: a question id `__proto__` is a key like any other.
  const out: RunPredictions = { answer: Object.create(null), sp: Object.create(null), missing: [] };
  for (const row of chosen) {
    if (row.status !== "ok" || row.prediction === null) {
      out.missing.push(row.question_id);
      continue;
    }
    out.answer[row.question_id] = row.prediction.answer;
    out.sp[row.question_id] = row.prediction.sp;
  }
  return out;
}

async function readRunJson(run: string, name: string): Promise<unknown> {
  const path = join(run, name);
  const text = await readInputText(path, "hotpot predictions", MAX_RUN_FILE_BYTES);
  return parseInputJson(text, path, undefined, { keepLoneSurrogates: false });
}

function alreadyExists(path: string, option: string): string {
  return `${option} ${path} already exists; nothing was written`;
}

async function writeNew(path: string, option: string, value: unknown): Promise<void> {
  try {
    await writeFileAtomic(path, new TextEncoder().encode(JSON.stringify(value) + "\n"));
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("refusing")) {
      throw new UsageError(alreadyExists(path, option));
    }
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`${option} ${path}: its folder does not exist`);
    }
    throw error;
  }
}

export async function hotpotPredictionsCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("hotpot predictions", argv, {
    method: z.string().min(1).optional(),
    generation: intOption(0, 1_000).optional(),
    answer: intOption(0, 1_000).optional(),
    "input-cap": intOption(1, 10_000_000).optional(),
    output: z.string().min(1).optional(),
    "gold-output": z.string().min(1).optional(),
  });
  if (options.help) return printHelp(HELP);
  if (positionals.length !== 1) {
    throw new UsageError(
      `hotpot predictions: expected one RUN directory (see '${CLI} hotpot predictions --help')`,
    );
  }
  if (options.method === undefined) throw new UsageError("hotpot predictions: --method M is required");
  if (options.output === undefined) throw new UsageError("hotpot predictions: --output FILE is required");
  const run = positionals[0];
  await statInputDirectory(run, "hotpot predictions");
  const manifest = await readManifest(run, "hotpot predictions");
  if (manifest.suite !== "hotpot") {
    throw new UsageError(`hotpot predictions: ${run} is a '${manifest.suite}' run, not a hotpot run`);
  }
  for (const option of ["output", "gold-output"] as const) {
    const path = options[option];
    if (path !== undefined) await refuseExisting(path, alreadyExists(path, `--${option}`));
  }
  const rows = z.array(RowSchema).safeParse(await readRunJson(run, "results.json"));
  if (!rows.success) {
    const issue = rows.error.issues[0];
    throw new UsageError(`${join(run, "results.json")}: field ${issue.path.join(".")}: ${issue.message}`);
  }
  const predictions = predictionsOf(rows.data, {
    method: options.method,
    generation: options.generation ?? 0,
    answer: options.answer ?? 0,
    inputCap: options["input-cap"],
  });
  let gold: unknown[] | undefined;
  if (options["gold-output"] !== undefined) {
    const corpus = CorpusSchema.safeParse(await readRunJson(run, "corpus.json"));
    if (!corpus.success) {
      throw new UsageError(`${join(run, "corpus.json")}: not a corpus (${corpus.error.issues[0]?.message})`);
    }
    gold = toOfficialHotpotJson(corpus.data.questions.map((q) => ({ ...q, ...corpus.data.gold[q.id] })));
  }
  await writeNew(options.output, "--output", { answer: predictions.answer, sp: predictions.sp });
  if (gold !== undefined) await writeNew(options["gold-output"]!, "--gold-output", gold);
  const count = Object.keys(predictions.answer).length;
  console.log(
    `${count} prediction(s) of ${options.method} (generation ${options.generation ?? 0}, answer ${
      options.answer ?? 0
    }) written to ${options.output}` +
      (predictions.missing.length > 0
        ? `; ${predictions.missing.length} question(s) had an invalid answer and have none (scored zero)`
        : ""),
  );
  if (gold !== undefined) console.log(`${gold.length} gold record(s) written to ${options["gold-output"]}`);
  console.log(
    `score: ${CLI} hotpot score --gold ${options["gold-output"] ?? "GOLD.json"} --pred ${options.output}`,
  );
  return 0;
}
