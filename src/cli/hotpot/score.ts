/**
 * `compaction-bench hotpot score --gold FILE --pred FILE`: the official metrics of a prediction file.
 * @module
 */
import { z } from "zod";
import { loadHotpot } from "../../data/hotpot_load.ts";
import { parseField } from "../../data/hotpot_record.ts";
import { CheckFailedError, UsageError } from "../../errors.ts";
import {
  averageMetrics,
  METRIC_NAMES,
  parseJsonKeepingDecimalIds,
  scoreQuestion,
} from "../../suites/hotpot/run/scoring.ts";
import { parseOptions, printHelp } from "../args.ts";
import { INPUT_MAX_BYTES, readInputText } from "../../fs_input.ts";
import { CLI } from "../../core/program_name.ts";
import { ownRecord } from "../../core/own_record.ts";

const HELP = `Usage: ${CLI} hotpot score --gold FILE --pred FILE

Scores HotpotQA predictions with the official hotpot_evaluate_v1.py metrics and prints them as JSON:
${METRIC_NAMES.join(", ")}.

  --gold FILE   gold records: official JSON (.json) or Hugging Face Parquet (.parquet)
  --pred FILE   predictions: {"answer": {id: answer}, "sp": {id: [[title, sentence_id], ...]}}
  -h, --help    show this help

Averages run over all gold records; a record missing from "answer" or "sp" scores zero for that part and
for the joint metrics (a warning on stderr gives the counts). An empty gold file, or predictions that match
no gold id, print the counts and exit 1 instead of a row of zeros. A supporting-fact id that is not an integer earns no credit.
`;

export const PredictionFileSchema = z.object({
  answer: ownRecord(z.string()), // every id kept, `__proto__` too
  sp: ownRecord(z.array(z.unknown())),
});
export type PredictionFile = z.infer<typeof PredictionFileSchema>;

/** Reads and validates a prediction file; errors name the file and the field. */
export async function loadPredictionFile(path: string): Promise<PredictionFile> {
  const text = await readInputText(path, "--pred", INPUT_MAX_BYTES.predictions);
  let data: unknown;
  try {
    data = parseJsonKeepingDecimalIds(text);
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new UsageError(`--pred ${path}: not valid JSON (${error.message})`);
    }
    throw error;
  }
  return parseField(PredictionFileSchema, data, path);
}

/** Scores a prediction file against gold records: the official averages and the gold records covered. */
export async function scoreHotpotFiles(goldPath: string, predPath: string) {
  const gold = await loadHotpot(goldPath, "--gold");
  const pred = await loadPredictionFile(predPath);
  const has = (o: Record<string, unknown>, k: string) => Object.hasOwn(o, k);
  const ids = new Set(gold.map((r) => r.id));
  const predicted = new Set([...Object.keys(pred.answer), ...Object.keys(pred.sp)]);
  const coverage = {
    gold: gold.length,
    answered: gold.filter((r) => has(pred.answer, r.id)).length,
    withSp: gold.filter((r) => has(pred.sp, r.id)).length,
    matched: gold.filter((r) => has(pred.answer, r.id) || has(pred.sp, r.id)).length,
    unknown: [...predicted].filter((id) => !ids.has(id)).length, // prediction ids that match no gold id
  };
  const metrics = averageMetrics(gold.map((record) =>
    scoreQuestion({
      answer: has(pred.answer, record.id) ? pred.answer[record.id] : undefined,
      sp: has(pred.sp, record.id) ? pred.sp[record.id] : undefined,
    }, record)
  ));
  return { metrics, coverage };
}

export async function hotpotScoreCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("hotpot score", argv, {
    gold: z.string().min(1).optional(),
    pred: z.string().min(1).optional(),
  });
  if (options.help) return printHelp(HELP);
  if (positionals.length > 0) {
    throw new UsageError(`hotpot score: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  if (options.gold === undefined) throw new UsageError("hotpot score: --gold FILE is required");
  if (options.pred === undefined) throw new UsageError("hotpot score: --pred FILE is required");
  const { metrics, coverage } = await scoreHotpotFiles(options.gold, options.pred);
  const counts = `${coverage.gold} gold record(s); predictions cover ${coverage.matched} ` +
    `(answer ${coverage.answered}, supporting facts ${coverage.withSp}); ${coverage.unknown} predicted id(s) ` +
    `match no gold id`;
  if (coverage.gold === 0) {
    throw new CheckFailedError(`--gold ${options.gold}: no gold records, nothing to score (${counts})`);
  }
  if (coverage.matched === 0) {
    throw new CheckFailedError(
      `--pred ${options.pred}: no prediction matches a gold id, every score would be 0 (${counts})`,
    );
  }
  console.log(JSON.stringify(metrics, null, 2));
  if (coverage.matched < coverage.gold || coverage.unknown > 0) console.error(`warning: ${counts}`);
  return 0;
}
