/**
 * `corpus.json`, `hotpot collect`'s frozen output and `hotpot run`'s input: dataset hash, selection, and per
 * question its public material; gold labels sit in a separate `gold` map no method's input can reach.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import { decodeUtf8, parseInputJson, readInputFile } from "../../fs_input.ts";
import { ArticleSchema } from "../../data/hotpot_record.ts";
import { ChatMessageSchema } from "../../models/messages.ts";
import { type CorpusIndex, indexCorpus, questionAt } from "./corpus_index.ts";
import type { Span } from "../../core/json_spans.ts";
import { ownRecord } from "../../core/own_record.ts";
import { plainCheck } from "../../core/plain_check.ts";

/** Format tag of corpus files. */
export const CORPUS_FORMAT = "compaction-bench/hotpot-corpus@1";

/** How the trajectories were collected (see collect/collect_question.ts). */
export const CollectionModeSchema = z.enum(["scripted", "live", "hermes", "agent"]);

/** One selected question's public part (its agent's own system prompt; "files unchanged" by hashes). */
export const CorpusQuestionSchema = z.object({
  id: z.string(),
  type: z.enum(["bridge", "comparison"]),
  level: z.string(),
  question: z.string(),
  context: z.array(ArticleSchema),
  collection: CollectionModeSchema,
  valid: z.boolean(),
  reason: z.string().optional(),
  system_prompt: z.object({ text: z.string(), sha256: z.string() }).nullable().optional(),
  files_unchanged: z.enum(["verified", "not verifiable"]).optional(),
  trajectory: z.array(ChatMessageSchema),
});
export type CorpusQuestion = z.infer<typeof CorpusQuestionSchema>;

/**
 * True only when {@link CorpusQuestionSchema} accepts `value` and gives it back member for member: the check
 * then takes the value as read, without zod's general parser. A no leaves the decision to the schema.
 */
export const isPlainCorpusQuestion = plainCheck(CorpusQuestionSchema);

/** The gold labels of one question. */
export const CorpusGoldSchema = z.object({
  answer: z.string(),
  supporting_facts: z.array(z.object({ title: z.string(), sent_id: z.number().int().nonnegative() })),
});
export type CorpusGold = z.infer<typeof CorpusGoldSchema>;

/** The whole corpus file. */
export const CorpusSchema = z.object({
  format: z.literal(CORPUS_FORMAT),
  dataset: z.object({ path: z.string(), sha256: z.string(), records: z.number().int() }),
  protocol: z.object({
    seed: z.number().int(),
    bridge: z.number().int(),
    comparison: z.number().int(),
    min_chars: z.number().int(),
    max_chars: z.number().int(),
    collection: CollectionModeSchema,
    agent: z.string().optional(), // `--agent exec:CMD`
  }),
  selection: z.object({
    considered: z.number().int(),
    removed: z.record(z.string(), z.number().int()),
    skipped_quota_full: z.number().int(),
  }),
  /** A collect shard's (`--shard K/N`): it holds that part of the selection only. */
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).optional(),
  questions: z.array(CorpusQuestionSchema),
  gold: ownRecord(CorpusGoldSchema), // a question id `__proto__` keeps its labels
});
export type Corpus = z.infer<typeof CorpusSchema>;

/** Validates the caller's own parsed corpus question by question in place (never raw and parsed whole). */
function parseCorpusQuestionByQuestion(json: unknown):
  | { success: true; data: Corpus }
  | { success: false; error: z.ZodError; prefix: (string | number)[] } {
  const questions = (json as { questions?: unknown } | null)?.questions;
  if (!Array.isArray(questions)) {
    const whole = CorpusSchema.safeParse(json);
    return whole.success ? whole : { success: false, error: whole.error, prefix: [] };
  }
  for (let i = 0; i < questions.length; i++) {
    const question = CorpusQuestionSchema.safeParse(questions[i]);
    if (!question.success) return { success: false, error: question.error, prefix: ["questions", i] };
    questions[i] = question.data;
  }
  const head = CorpusSchema.omit({ questions: true }).safeParse(json);
  if (!head.success) return { success: false, error: head.error, prefix: [] };
  return { success: true, data: { ...head.data, questions: questions as CorpusQuestion[] } };
}

/**
 * How many bytes of a corpus the check hands over to the run's question nodes: its first questions' text, kept
 * parsed, and the file's bytes when no larger (a bound: memory stays flat for large corpora).
 */
export const CHECKED_CORPUS_KEPT_BYTES = 4 << 20;

/**
 * {@link readCorpus}'s checks question by question (corpus_index.ts), keeping only bytes and head; a file the
 * index cannot follow is checked whole. `spans` (absent then): each question's byte range, in file order;
 * `parsed`: the first questions as validated, up to {@link CHECKED_CORPUS_KEPT_BYTES} of their text.
 */
export async function checkCorpusFile(path: string): Promise<{
  head: Omit<Corpus, "questions">;
  bytes: Uint8Array;
  spans?: Map<string, Span>;
  parsed?: Map<string, CorpusQuestion>;
  validity: Validity;
}> {
  const bytes = await readInputFile(path, "--corpus");
  let index: CorpusIndex | null;
  try {
    index = indexCorpus(bytes);
  } catch (error) {
    if (!(error instanceof SyntaxError || error instanceof TypeError)) throw error;
    index = null; // checked whole below, which names the problem
  }
  if (index === null) {
    const { corpus } = checkedCorpus(bytes, path);
    const { questions, ...head } = corpus;
    const validity: Validity = { questions: questions.length, valid: 0 };
    for (const q of questions) countValidity(validity, q);
    return { head, bytes, validity };
  }
  const head = CorpusSchema.omit({ questions: true }).safeParse(index.head);
  if (!head.success) throw fieldError(path, [], head.error);
  if (index.spans.length === 0) {
    throw new UsageError(`--corpus ${path}: field questions: the corpus has no questions`);
  }
  const seen = new Set<string>();
  const spans = new Map<string, Span>();
  const parsed = new Map<string, CorpusQuestion>();
  let keep = CHECKED_CORPUS_KEPT_BYTES;
  const validity: Validity = { questions: index.spans.length, valid: 0 };
  for (const [i, span] of index.spans.entries()) {
    let raw: unknown;
    try {
      raw = questionAt(bytes, span);
    } catch (error) {
      if (!(error instanceof SyntaxError || error instanceof TypeError)) throw error;
      throw new UsageError(`${path}: field questions.${i}: not valid UTF-8 JSON: ${error.message}`);
    }
    // The usual question passes the plain check as read; the schema decides the rest and names problems.
    const question = isPlainCorpusQuestion(raw)
      ? { success: true as const, data: raw }
      : CorpusQuestionSchema.safeParse(raw);
    if (!question.success) throw fieldError(path, ["questions", i], question.error);
    checkQuestionId(question.data.id, seen, head.data.gold, path);
    spans.set(question.data.id, span);
    keep -= span[1] - span[0];
    if (keep >= 0) parsed.set(question.data.id, question.data);
    countValidity(validity, question.data);
  }
  return { head: head.data, bytes, spans, parsed, validity };
}

/** How many of a corpus's questions have a valid trajectory, and the first invalid one's reason. */
export interface Validity {
  questions: number;
  valid: number;
  firstInvalid?: { id: string; reason: string };
}

function countValidity(validity: Validity, question: Pick<CorpusQuestion, "id" | "valid" | "reason">): void {
  if (question.valid) validity.valid++;
  else validity.firstInvalid ??= { id: question.id, reason: question.reason ?? "invalid" };
}

/** The error naming the file and the field of a corpus's first issue (`prefix`: where the parsed part lies). */
function fieldError(path: string, prefix: (string | number)[], error: z.ZodError): UsageError {
  const issue = error.issues[0];
  const at = [...prefix, ...issue.path.map(String)].join(".");
  return new UsageError(`${path}: field ${at || "(root)"}: ${issue.message}`);
}

function checkQuestionId(id: string, seen: Set<string>, gold: Corpus["gold"], path: string): void {
  if (seen.has(id)) {
    throw new UsageError(
      `--corpus ${path}: field questions: question id ${JSON.stringify(id)} appears twice`,
    );
  }
  seen.add(id);
  if (!Object.hasOwn(gold, id)) throw new UsageError(`${path}: question ${id} has no gold labels`);
}

/** Reads and validates a corpus file whole; errors name the file and the field. */
export async function readCorpus(path: string): Promise<{ corpus: Corpus; bytes: Uint8Array }> {
  return checkedCorpus(await readInputFile(path, "--corpus"), path);
}

function checkedCorpus(bytes: Uint8Array, path: string): { corpus: Corpus; bytes: Uint8Array } {
  const json = parseInputJson(decodeUtf8(bytes, path, "--corpus"), path, "--corpus");
  const parsed = parseCorpusQuestionByQuestion(json);
  if (!parsed.success) throw fieldError(path, parsed.prefix, parsed.error);
  if (parsed.data.questions.length === 0) {
    throw new UsageError(`--corpus ${path}: field questions: the corpus has no questions`);
  }
  const seen = new Set<string>();
  for (const q of parsed.data.questions) checkQuestionId(q.id, seen, parsed.data.gold, path);
  return { corpus: parsed.data, bytes };
}
