/**
 * `hotpot-question`: splits one corpus question into its public material (what the methods see) and its gold
 * labels (what only the score sees); invalid when the collection failed its checks. And `hotpot-corpus-head`:
 * the corpus without its questions and gold labels, with the questions' order (what the report states).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../../models/messages.ts";
import { ArticleSchema } from "../../../../data/hotpot_record.ts";
import {
  type Corpus,
  CorpusGoldSchema,
  type CorpusQuestion,
  CorpusQuestionSchema,
  CorpusSchema,
} from "../../corpus.ts";
import { indexCorpus, questionAt } from "../../corpus_index.ts";
import type { Span } from "../../../../core/json_spans.ts";
import { corpusHead, CorpusHeadSchema, questionCard, QuestionCardSchema } from "../../question_card.ts";
import { parseJsonBytes } from "../../../../core/json_read.ts";

/** The public material of one question as stored in the `question` output. */
export const StoredQuestionSchema = z.object({
  id: z.string(),
  type: z.enum(["bridge", "comparison"]),
  question: z.string(),
  context: z.array(ArticleSchema),
  trajectory: z.array(ChatMessageSchema),
  valid: z.boolean(),
  reason: z.string().nullable(),
});
/** The public material of one question. */
export type StoredQuestion = z.infer<typeof StoredQuestionSchema>;

/** Stored questions parsed by {@link storedQuestion}, by the input value they were parsed from. */
const parsedQuestions = new WeakMap<object, Readonly<StoredQuestion>>();

/** Freezes `value` and every object and array inside it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * A stored question input, validated once per input value (a question's stages share it) and deep-frozen, so
 * what is built from it (`questionUnits`) can be kept.
 */
export function storedQuestion(input: unknown): Readonly<StoredQuestion> {
  if (typeof input !== "object" || input === null) return StoredQuestionSchema.parse(input);
  let parsed = parsedQuestions.get(input);
  if (parsed === undefined) {
    parsed = deepFreeze(StoredQuestionSchema.parse(input));
    parsedQuestions.set(input, parsed);
  }
  return parsed;
}

/** A corpus input read question by question: its validated head (gold included), ids, and one question. */
interface IndexedCorpus {
  head: Omit<Corpus, "questions">;
  ids: string[];
  question(id: string): CorpusQuestion | undefined;
}

const indexedCorpora = new Map<string, IndexedCorpus>();

/** What the `--corpus` check found in a corpus (see {@link rememberCheckedCorpus}), by its SHA-256. */
interface CheckedCorpus {
  head: Omit<Corpus, "questions">;
  spans: Map<string, Span>;
  parsed?: Map<string, CorpusQuestion>;
  /** The corpus file's bytes as the check read them (their SHA-256 is the key). */
  bytes?: Uint8Array;
}

const checkedCorpora = new Map<string, CheckedCorpus>();

/**
 * Keeps the `--corpus` check's index of the corpus `sha256` (head, byte range per id, and the questions it kept
 * as validated, each handed over once) for {@link corpusOf}, and the bytes it read for {@link checkedCorpusBytes}.
 */
export function rememberCheckedCorpus(
  sha256: string,
  head: Omit<Corpus, "questions">,
  spans: Map<string, Span>,
  parsed?: Map<string, CorpusQuestion>,
  bytes?: Uint8Array,
): void {
  checkedCorpora.clear(); // one corpus per run
  checkedCorpora.set(sha256, { head, spans, parsed, bytes });
}

/** The bytes of the corpus `sha256` the `--corpus` check read and kept, handed over once (else undefined). */
export function checkedCorpusBytes(sha256: string): Uint8Array | undefined {
  const checked = checkedCorpora.get(sha256);
  const bytes = checked?.bytes;
  if (checked !== undefined) checked.bytes = undefined;
  return bytes;
}

/**
 * The corpus of a `corpus` input, indexed once per blob: each question is parsed when asked for, so a run never
 * holds the questions as objects. A file the scan cannot follow is parsed whole (zod names what is wrong).
 */
export function corpusOf(hash: string, bytes: Uint8Array): IndexedCorpus {
  let corpus = indexedCorpora.get(hash);
  if (!corpus) {
    const checked = checkedCorpora.get(hash);
    checkedCorpora.delete(hash);
    corpus = checked
      ? spanIndexed(bytes, checked.head, checked.spans, checked.parsed)
      : indexCorpusBytes(bytes);
    indexedCorpora.clear(); // one corpus per run: keep memory flat
    indexedCorpora.set(hash, corpus);
  }
  return corpus;
}

// Built once: a zod schema costs far more to build (and to compile at its first parse) than to run.
const QuestionlessCorpusSchema = CorpusSchema.omit({ questions: true });
const QuestionIdSchema = z.object({ id: z.string() });

function indexCorpusBytes(bytes: Uint8Array): IndexedCorpus {
  const index = indexCorpus(bytes);
  if (index === null) {
    const whole = parseCorpusInPlace(parseJsonBytes(bytes));
    const { questions, ...head } = whole;
    return { head, ids: questions.map((q) => q.id), question: (id) => questions.find((q) => q.id === id) };
  }
  const head = QuestionlessCorpusSchema.parse(index.head);
  const spanOf = new Map<string, Span>();
  for (const span of index.spans) {
    const id = QuestionIdSchema.parse(questionAt(bytes, span)).id;
    spanOf.set(id, span);
  }
  return spanIndexed(bytes, head, spanOf);
}

/**
 * The indexed corpus of `bytes` from its validated head and its questions' byte ranges by id; a question in
 * `parsed` (validated from these bytes) is handed over once, then dropped, instead of parsed again.
 */
function spanIndexed(
  bytes: Uint8Array,
  head: Omit<Corpus, "questions">,
  spanOf: ReadonlyMap<string, Span>,
  parsed?: Map<string, CorpusQuestion>,
): IndexedCorpus {
  return {
    head,
    ids: [...spanOf.keys()],
    question: (id) => {
      const kept = parsed?.get(id);
      if (kept !== undefined) {
        parsed!.delete(id);
        return kept;
      }
      const span = spanOf.get(id);
      return span === undefined ? undefined : CorpusQuestionSchema.parse(questionAt(bytes, span));
    },
  };
}

/** Validates a freshly parsed corpus question by question, in place (raw and parsed are never both whole). */
function parseCorpusInPlace(value: unknown): Corpus {
  const questions = (value as { questions?: unknown } | null)?.questions;
  if (!Array.isArray(questions)) return CorpusSchema.parse(value); // zod names what is wrong
  for (let i = 0; i < questions.length; i++) questions[i] = CorpusQuestionSchema.parse(questions[i]);
  const head = QuestionlessCorpusSchema.parse(value);
  return { ...head, questions: questions as CorpusQuestion[] };
}

/** Drops the indexed corpus of `hash` (once every question node of a run is made). */
export function forgetCorpus(hash: string): void {
  indexedCorpora.delete(hash);
}

/** A question's id and type: what the aggregate needs of a question, without its material. */
export const QuestionMetaSchema = z.object({ id: z.string(), type: z.enum(["bridge", "comparison"]) });

/** The `hotpot-question` stage. */
export const hotpotQuestionStage = defineStage({
  name: "hotpot-question",
  version: 4,
  doc: "One corpus question split into its public material, its gold labels, its id and type, and its card.",
  params: z.object({ id: z.string() }),
  inputs: ["corpus"],
  // The corpus file's bytes: the body parses only its own question (see corpusOf).
  bytesInputs: ["corpus"],
  // None is handed back: the run passes them on by hash, and each reader validates what it reads.
  outputs: {
    question: {
      schema: StoredQuestionSchema,
      held: false,
      doc: "the question, its articles and trajectory, validity",
    },
    gold: {
      schema: CorpusGoldSchema,
      held: false,
      doc: "the gold answer and supporting facts (read only by the score)",
    },
    meta: {
      schema: QuestionMetaSchema,
      held: false,
      doc: "the question's id and type (read by the aggregate)",
    },
    card: {
      schema: QuestionCardSchema,
      held: false,
      doc: "what the report shows of the question: its facts, gold answer and supporting sentences",
    },
  },
  provider: false,
  run({ params, inputs, hashes }) {
    const corpus = corpusOf(hashes.corpus, inputs.corpus as Uint8Array);
    const cq = corpus.question(params.id);
    if (!cq) throw new Error(`hotpot-question: question ${params.id} is not in the corpus`);
    const { id, type, question, context, trajectory, valid, reason } = cq;
    return Promise.resolve({
      outputs: {
        question: { id, type, question, context, trajectory, valid, reason: reason ?? null },
        gold: corpus.head.gold[cq.id],
        meta: { id, type },
        card: questionCard(cq, corpus.head.gold[cq.id]),
      },
      status: valid ? "ok" as const : "invalid" as const,
      ...(valid ? {} : { reason: `collection invalid: ${reason}` }),
    });
  },
});

/** The `hotpot-corpus-head` stage. */
export const hotpotCorpusHeadStage = defineStage({
  name: "hotpot-corpus-head",
  version: 1,
  doc: "The corpus's dataset, selection and collection facts and its questions' order (read by the report).",
  params: z.object({}),
  inputs: ["corpus"],
  bytesInputs: ["corpus"],
  outputs: {
    // Not handed back: the report reads it by hash.
    head: {
      schema: CorpusHeadSchema,
      held: false,
      doc: "the corpus without questions and gold labels, with question_ids",
    },
  },
  provider: false,
  run({ inputs, hashes }) {
    const corpus = corpusOf(hashes.corpus, inputs.corpus as Uint8Array);
    return Promise.resolve({ outputs: { head: corpusHead(corpus.head, corpus.ids) } });
  },
});
