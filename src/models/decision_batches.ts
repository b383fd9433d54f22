/**
 * Splitting a System One question set into batches that each keep the request body under the API's limits:
 * a byte cap on the UTF-8 JSON body (32 MiB) and a cap on questions per request.
 *
 * @module
 */
import type { NoulQuestion } from "./types.ts";

/** The System One body limit: 32 MiB. */
export const MAX_SYSTEMONE_BODY_BYTES = 32 * 1024 * 1024;
/** Default cap on questions per request. */
export const DEFAULT_MAX_QUESTIONS_PER_BATCH = 256;

/** Limits of one batch. */
export interface BatchLimits {
  maxQuestions: number;
  maxBodyBytes: number;
}

/** A batch: the indexes (into the full question list) `start` inclusive to `end` exclusive. */
export interface QuestionBatch {
  start: number;
  end: number;
  /** Exact UTF-8 size of the body `{model, state, questions}` of this batch. */
  bodyBytes: number;
}

/** The exact body System One receives for one batch. */
export function systemOneBody(model: string, state: string, questions: NoulQuestion[]): string {
  return JSON.stringify({ model, state, questions });
}

const encoder = new TextEncoder();
/** Reused for {@link utf8Length}; grown when a text could need more. */
let scratch = new Uint8Array(1 << 16);

/** The exact UTF-8 size of `text` (encoded into a reused buffer: nothing is allocated per text). */
function utf8Length(text: string): number {
  // A UTF-16 code unit takes at most 3 UTF-8 bytes (a surrogate pair, two units, takes 4).
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  return encoder.encodeInto(text, scratch).written;
}

/**
 * The one body of the whole question set when it fits a single batch (at most `maxQuestions` questions and
 * `maxBodyBytes` UTF-8 bytes), else undefined (no questions, invalid limits, or more than one batch: then
 * {@link splitQuestionBatches} says how to split or why not). The batch {@link splitQuestionBatches} gives in
 * that case is exactly `{start: 0, end: questions.length}`, and this is its body, serialized once for both
 * the check and the request.
 */
export function singleBatchBody(
  model: string,
  state: string,
  questions: NoulQuestion[],
  limits: BatchLimits,
): string | undefined {
  if (!Number.isInteger(limits.maxQuestions) || limits.maxQuestions < 1) return undefined;
  if (questions.length === 0 || questions.length > limits.maxQuestions) return undefined;
  const body = systemOneBody(model, state, questions);
  // A UTF-16 code unit takes at most 3 UTF-8 bytes: a short enough text fits without being encoded.
  if (body.length * 3 <= limits.maxBodyBytes || utf8Length(body) <= limits.maxBodyBytes) return body;
  return undefined;
}

/**
 * Splits `questions` greedily, in order, into batches whose body (`JSON.stringify({model, state,
 * questions})`, counted exactly in UTF-8 bytes) is at most `maxBodyBytes` and that hold at most
 * `maxQuestions` questions. Throws a RangeError naming the question index when one question alone does not
 * fit. An empty question list gives no batches.
 */
export function splitQuestionBatches(
  model: string,
  state: string,
  questions: NoulQuestion[],
  limits: BatchLimits,
): QuestionBatch[] {
  if (!Number.isInteger(limits.maxQuestions) || limits.maxQuestions < 1) {
    throw new RangeError(`maxQuestions must be a positive integer, got ${limits.maxQuestions}`);
  }
  if (questions.length === 0) return [];
  // Usually every question fits one body: then that body's size is the batch's, with no size per question.
  // (The greedy sum below is exactly this size: the empty body's, each question's, and a comma between two.)
  if (questions.length <= limits.maxQuestions) {
    const wholeBytes = utf8Length(systemOneBody(model, state, questions));
    if (wholeBytes <= limits.maxBodyBytes) {
      return [{ start: 0, end: questions.length, bodyBytes: wholeBytes }];
    }
  }
  const emptyBytes = utf8Length(systemOneBody(model, state, []));
  const batches: QuestionBatch[] = [];
  let start = 0;
  let bytes = emptyBytes;
  for (let index = 0; index < questions.length; index++) {
    const questionBytes = utf8Length(JSON.stringify(questions[index]));
    if (emptyBytes + questionBytes > limits.maxBodyBytes) {
      throw new RangeError(
        `question ${index} alone makes a ${
          emptyBytes + questionBytes
        }-byte body, over the ${limits.maxBodyBytes}-byte limit`,
      );
    }
    const count = index - start;
    const added = count === 0 ? questionBytes : questionBytes + 1; // a comma separates questions
    if (count === limits.maxQuestions || bytes + added > limits.maxBodyBytes) {
      batches.push({ start, end: index, bodyBytes: bytes });
      start = index;
      bytes = emptyBytes + questionBytes;
    } else {
      bytes += added;
    }
  }
  if (questions.length > start) batches.push({ start, end: questions.length, bodyBytes: bytes });
  return batches;
}
