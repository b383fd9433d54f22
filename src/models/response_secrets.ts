/**
 * A response that carries a key. Stored bodies are never redacted (what a run stores is what was received), with
 * one exception: a response body that contains one of the run's secrets ({@link MIN_SECRET_CHARS} characters or
 * more; anywhere: content, `model`, `system_fingerprint`, an error body) fails its call with the reason
 * {@link RESPONSE_CONTAINS_KEY}, and its stored copy has every occurrence replaced by `[REDACTED]`, recorded in
 * the call record's `response_altered`. Nothing is derived from such a response (no content, model or usage).
 *
 * @module
 */
import { type NamedSecret, secretsIn } from "../core/secrets.ts";
import type { ResponseAlteration } from "../core/call_record.ts";
import { REDACTED, redactValue } from "./credentials.ts";

export { MIN_SECRET_CHARS } from "../core/secrets.ts";

/** The reason a call fails when its response carries a key. */
export const RESPONSE_CONTAINS_KEY = "response_contains_key";

/** The run's secrets a response (its raw text and, when parsed, its decoded strings) carries. */
export function keysInResponse(raw: string | undefined, parsed: unknown, secrets: readonly NamedSecret[]) {
  const found = raw === undefined ? [] : secretsIn(raw, secrets);
  if (parsed !== undefined && typeof parsed !== "string") {
    // Decoded strings too: `\u0073k-…` escapes would hide a key from the raw text.
    for (const secret of secretsIn(JSON.stringify(parsed) ?? "", secrets)) {
      if (!found.some((f) => f.name === secret.name)) found.push(secret);
    }
  } else if (typeof parsed === "string") {
    for (const secret of secretsIn(parsed, secrets)) {
      if (!found.some((f) => f.name === secret.name)) found.push(secret);
    }
  }
  return found;
}

/** The failure reason of a call whose response carried `found`. */
export function responseContainsKeyError(found: readonly NamedSecret[]): string {
  return `${RESPONSE_CONTAINS_KEY}: the response carries the value of ${
    found.map((s) => s.name).join(", ")
  }; the call fails and its stored response has it replaced by ${REDACTED}`;
}

/**
 * What a call record stores of `response`: the response itself, or — when it carries a key — a copy with every
 * key replaced and the alteration that says so.
 */
export function storedResponse(
  response: unknown,
  secrets: readonly NamedSecret[],
): { response: unknown; altered?: ResponseAlteration; found: NamedSecret[] } {
  const found = keysInResponse(typeof response === "string" ? response : undefined, response, secrets);
  if (found.length === 0) return { response, found };
  return {
    response: redactValue(response, found.map((s) => s.value)),
    altered: {
      reason: RESPONSE_CONTAINS_KEY,
      secrets: found.map((s) => s.name),
      replaced_with: REDACTED,
    },
    found,
  };
}

/**
 * The secrets a client's responses must not carry: those `listed` for the run, with the client's own key
 * first under `keyName` unless it is listed already (under whatever name).
 */
export function clientSecrets(
  apiKey: string,
  keyName: string,
  listed: readonly NamedSecret[] = [],
): readonly NamedSecret[] {
  return listed.some((s) => s.value === apiKey) ? listed : [{ name: keyName, value: apiKey }, ...listed];
}

/**
 * The error of a call whose stored response carried `found`: the key reason, followed by the call's own
 * `error` in parentheses unless that already starts with it (or there is none).
 */
export function keyFailureError(error: string | undefined, found: readonly NamedSecret[]): string {
  const reason = responseContainsKeyError(found);
  return error === undefined ? reason : error.startsWith(reason) ? error : `${reason} (${error})`;
}
