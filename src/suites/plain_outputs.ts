/**
 * Fast acceptance of the answer pipeline's usual stage outputs (rankings, summaries, answer inputs, answers
 * and their statuses) before their zod schemas, as the executor validates every freshly computed output and
 * stage bodies read their inputs. One-sided: yes only for a value its schema accepts (plain JSON values: objects
 * with no prototype or Object's, no symbol keys); a no leaves the decision and the error message to the schema.
 * @module
 */
import type { z } from "zod";
import { isPlainMessage } from "../models/plain_requests.ts";

/**
 * `value` read through `schema`: as it is when `plain` accepts it (its declared members are the ones the parse
 * would give; not copied, other members not stripped), else `schema.parse`'s result (or its error).
 */
export function readPlain<T>(schema: z.ZodType<T>, plain: (value: unknown) => boolean, value: unknown): T {
  return plain(value) ? value as T : schema.parse(value);
}

/** An object as parsed JSON makes it: no prototype or Object's, no symbol keys. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === null || proto === Object.prototype) && Object.getOwnPropertySymbols(value).length === 0;
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

function isInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value);
}

function isStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    if (!(i in value) || typeof value[i] !== "string") return false;
  }
  return true;
}

/** A record of own enumerable string keys only (no `constructor` or `__proto__` key), each value accepted. */
function isPlainRecord(value: unknown, member: (item: unknown) => boolean): boolean {
  if (!isJsonObject(value)) return false;
  const keys = Object.keys(value);
  // Every own key enumerable: the schema reads the non-enumerable ones too.
  if (Object.getOwnPropertyNames(value).length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === "constructor" || key === "__proto__" || !member(value[key])) return false;
  }
  return true;
}

const isFiniteNumber = (value: unknown) => typeof value === "number" && Number.isFinite(value);
const anyValue = () => true;

/** True only when `StoredRankingSchema.nullable()` accepts `value`. */
export function isPlainRanking(value: unknown): boolean {
  if (value === null) return true;
  if (!isJsonObject(value) || typeof value.ok !== "boolean" || !isStringArray(value.order)) return false;
  if (!isOptionalString(value.node) || !isOptionalString(value.model) || !isOptionalString(value.error)) {
    return false;
  }
  return value.probabilities === undefined || isPlainRecord(value.probabilities, isFiniteNumber);
}

/** True only when `StoredSummarySchema.nullable()` accepts `value`. */
export function isPlainSummary(value: unknown): boolean {
  if (value === null) return true;
  if (!isJsonObject(value) || typeof value.ok !== "boolean") return false;
  if (value.text !== null && typeof value.text !== "string") return false;
  if (!isOptionalString(value.node) || !isOptionalString(value.reason)) return false;
  if (value.kept !== undefined && !isStringArray(value.kept)) return false;
  return value.attempts === undefined || isInteger(value.attempts);
}

/** True only when `z.array(ChatMessageSchema).nullable()` accepts `value`. */
export function isPlainMessages(value: unknown): boolean {
  if (value === null) return true;
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    if (!(i in value) || !isJsonObject(value[i]) || !isPlainMessage(value[i])) return false;
  }
  return true;
}

/** True only when `StoredAnswerSchema.nullable()` accepts `value`. */
export function isPlainAnswer(value: unknown): boolean {
  if (value === null) return true;
  if (!isJsonObject(value) || typeof value.content !== "string" || typeof value.model !== "string") {
    return false;
  }
  if (typeof value.finish_reason !== "string") return false;
  const usage = value.usage;
  return isJsonObject(usage) && isInteger(usage.prompt_tokens) && isInteger(usage.completion_tokens) &&
    isInteger(usage.total_tokens);
}

/** True only when `AnswerStatusSchema` accepts `value`. */
export function isPlainAnswerStatus(value: unknown): boolean {
  if (!isJsonObject(value) || typeof value.node !== "string") return false;
  if (value.status !== "ok" && value.status !== "invalid") return false;
  if (value.reason !== null && typeof value.reason !== "string") return false;
  return isPlainRecord(value.params, anyValue);
}
