/**
 * A response that carries a key of the run (anywhere in its body) fails its call with
 * {@link RESPONSE_CONTAINS_KEY}; its stored copy, the one body ever altered, has every occurrence replaced,
 * as `response_altered` says. Nothing is derived from such a response.
 * @module
 */
import { type NamedSecret, secretsIn } from "../core/secrets.ts";
import type { CallRecord, ResponseAlteration } from "../core/call_record.ts";
import { redact, REDACTED, redactValue } from "./credentials.ts";

export { MIN_SECRET_CHARS } from "../core/secrets.ts";

const RESPONSE_CONTAINS_KEY = "response_contains_key";

/** The run's secrets a response (its raw text and, when parsed, its decoded strings) carries. */
export function keysInResponse(raw: string | undefined, parsed: unknown, secrets: readonly NamedSecret[]) {
  const found = raw === undefined ? [] : secretsIn(raw, secrets);
  // Decoded strings too: `\u0073k-…` escapes would hide a key from the raw text.
  const decoded = parsed === undefined
    ? ""
    : typeof parsed === "string"
    ? parsed
    : JSON.stringify(parsed) ?? "";
  for (const secret of secretsIn(decoded, secrets)) {
    if (!found.some((f) => f.name === secret.name)) found.push(secret);
  }
  return found;
}

/** The failure reason of a call whose response carried `found`. */
export function responseContainsKeyError(found: readonly NamedSecret[]): string {
  return `${RESPONSE_CONTAINS_KEY}: the response carries the value of ${
    found.map((s) => s.name).join(", ")
  }; the call fails and its stored response has it replaced by ${REDACTED}`;
}

/** What a call record stores of `response`: itself, or when it carries a key, a copy with every key replaced. */
export function storedResponse(
  response: unknown,
  secrets: readonly NamedSecret[],
): { response: unknown; altered?: ResponseAlteration; found: NamedSecret[] } {
  const found = keysInResponse(typeof response === "string" ? response : undefined, response, secrets);
  if (found.length === 0) return { response, found };
  return {
    response: redactValue(response, found.map((s) => s.value)),
    altered: { reason: RESPONSE_CONTAINS_KEY, secrets: found.map((s) => s.name), replaced_with: REDACTED },
    found,
  };
}

/** The secrets a client's responses must not carry: those `listed`, and its own key unless listed. */
export function clientSecrets(
  apiKey: string,
  keyName: string,
  listed: readonly NamedSecret[] = [],
): readonly NamedSecret[] {
  return listed.some((s) => s.value === apiKey) ? listed : [{ name: keyName, value: apiKey }, ...listed];
}

/** The error of a call whose stored response carried `found`: the key reason, then the call's own in (). */
export function keyFailureError(error: string | undefined, found: readonly NamedSecret[]): string {
  const reason = responseContainsKeyError(found);
  return error === undefined ? reason : error.startsWith(reason) ? error : `${reason} (${error})`;
}

/** What a call keeps of its last attempt for its record. */
export interface KeptReply {
  response?: unknown;
  raw?: CallRecord["response_raw"];
  status?: number;
  causes: readonly string[];
}

/**
 * Adds to `record` the last reply (stored as {@link storedResponse} says), raw body, HTTP status and the
 * attempts' causes (redacted); returns the call's error: `error`, or the key reason when the reply carried one,
 * which also fails the record with that error (redacted).
 */
export function keepReply(
  record: CallRecord,
  kept: KeptReply,
  error: string | undefined,
  secrets: readonly NamedSecret[],
): string | undefined {
  if (kept.response !== undefined) {
    const stored = storedResponse(kept.response, secrets);
    record.response = stored.response;
    if (stored.altered) {
      record.response_altered = stored.altered;
      error = keyFailureError(error, stored.found);
    }
  }
  if (kept.raw !== undefined) record.response_raw = kept.raw;
  if (kept.status !== undefined) record.http_status = kept.status;
  const values = secrets.map((s) => s.value);
  if (kept.causes.length > 0) record.attempt_errors = kept.causes.map((cause) => redact(cause, values));
  if (error === undefined) return undefined;
  record.status = "failed";
  record.error = redact(error, values);
  return record.error;
}
