/**
 * Splitting a System One question set into batches under the API's limits: a byte cap on the UTF-8 JSON body
 * and a cap on questions per request.
 * @module
 */
import type { NoulQuestion } from "./types.ts";

export const MAX_SYSTEMONE_BODY_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_QUESTIONS_PER_BATCH = 256;

type BatchLimits = { maxQuestions: number; maxBodyBytes: number };

/** A batch: questions `start` inclusive to `end` exclusive, and the exact UTF-8 size of its body. */
type QuestionBatch = { start: number; end: number; bodyBytes: number };

/** The exact body System One receives for one batch. */
export function systemOneBody(model: string, state: string, questions: NoulQuestion[]): string {
  return JSON.stringify({ model, state, questions });
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(1 << 16);

/** The exact UTF-8 size of `text` (encoded into a reused buffer: nothing is allocated per text). */
function utf8Length(text: string): number {
  // A UTF-16 code unit takes at most 3 UTF-8 bytes (a surrogate pair, two units, takes 4).
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  return encoder.encodeInto(text, scratch).written;
}

/**
 * The body of the whole question set when it fits one batch (serialized once for the check and the request),
 * else undefined: {@link splitQuestionBatches} then says how to split or why not.
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
 * Splits `questions` greedily, in order, into batches within the limits (bodies counted exactly in UTF-8
 * bytes); a RangeError names the question that alone does not fit.
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
  const emptyBytes = utf8Length(systemOneBody(model, state, []));
  const batches: QuestionBatch[] = [];
  let start = 0;
  let bytes = emptyBytes;
  for (let index = 0; index < questions.length; index++) {
    const questionBytes = utf8Length(JSON.stringify(questions[index]));
    if (emptyBytes + questionBytes > limits.maxBodyBytes) {
      const body = emptyBytes + questionBytes;
      throw new RangeError(
        `question ${index} alone makes a ${body}-byte body, over the ${limits.maxBodyBytes}-byte limit`,
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
