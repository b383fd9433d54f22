/**
 * `compaction-bench hotpot score --gold FILE --pred FILE`: scores an official-format prediction file
 * against gold HotpotQA records (official JSON or Hugging Face Parquet) and prints the official metrics.
 *
 * @module
 */
import { z } from "zod";
import { loadHotpot } from "../data/hotpot_load.ts";
import { formatIssuePath } from "../data/hotpot_record.ts";
import { UsageError } from "../errors.ts";
import { averageMetrics, type HotpotMetrics, scoreQuestion } from "../suites/hotpot/scoring.ts";
import { parseCommand } from "./args.ts";
import { parseJsonKeepingDecimalIds } from "../suites/hotpot/json_ids.ts";

const HELP = `Usage: compaction-bench hotpot score --gold FILE --pred FILE

Scores HotpotQA predictions with the official hotpot_evaluate_v1.py metrics and prints them as JSON:
em, f1, prec, recall, sp_em, sp_f1, sp_prec, sp_recall, joint_em, joint_f1, joint_prec, joint_recall.

  --gold FILE   gold records: official JSON (.json) or Hugging Face Parquet (.parquet)
  --pred FILE   predictions: {"answer": {id: answer}, "sp": {id: [[title, sentence_id], ...]}}
  -h, --help    show this help

Averages run over all gold records; a record missing from "answer" or "sp" scores zero for that part and
for the joint metrics. A supporting-fact id that is not an integer earns no credit.
`;

/** An official-format prediction file. */
export const PredictionFileSchema = z.object({
  answer: z.record(z.string(), z.string()),
  sp: z.record(z.string(), z.array(z.unknown())),
});
/** An official-format prediction file. */
export type PredictionFile = z.infer<typeof PredictionFileSchema>;

/** Reads and validates a prediction file; errors name the file and the field. */
export async function loadPredictionFile(path: string): Promise<PredictionFile> {
  let data: unknown;
  try {
    data = parseJsonKeepingDecimalIds(await Deno.readTextFile(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new UsageError(`${path}: no such file`);
    if (error instanceof SyntaxError) throw new UsageError(`${path}: not valid JSON: ${error.message}`);
    throw error;
  }
  const parsed = PredictionFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${path}: field ${formatIssuePath(issue.path)}: ${issue.message}`);
  }
  return parsed.data;
}

/** Scores a prediction file against gold records and returns the averaged official metrics. */
export async function scoreHotpotFiles(goldPath: string, predPath: string): Promise<HotpotMetrics> {
  const gold = await loadHotpot(goldPath);
  const pred = await loadPredictionFile(predPath);
  const has = (o: Record<string, unknown>, k: string) => Object.hasOwn(o, k);
  return averageMetrics(gold.map((record) =>
    scoreQuestion({
      answer: has(pred.answer, record.id) ? pred.answer[record.id] : undefined,
      sp: has(pred.sp, record.id) ? pred.sp[record.id] : undefined,
    }, record)
  ));
}

/** The `hotpot score` command: prints the metrics as JSON and returns the exit code. */
export async function hotpotScoreCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseCommand(
    "hotpot score",
    argv,
    { gold: { type: "string" }, pred: { type: "string" } },
    z.object({
      help: z.boolean().optional(),
      gold: z.string().min(1).optional(),
      pred: z.string().min(1).optional(),
    }),
  );
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(`hotpot score: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  if (options.gold === undefined) throw new UsageError("hotpot score: --gold FILE is required");
  if (options.pred === undefined) throw new UsageError("hotpot score: --pred FILE is required");
  const metrics = await scoreHotpotFiles(options.gold, options.pred);
  console.log(JSON.stringify(metrics, null, 2));
  return 0;
}
