/**
 * A provider's response body is hostile input: read up to a bound (`--max-response-bytes`) and cut off past
 * it, decoded as strict UTF-8, refused unless I-JSON. A refused body is kept raw in the call record with a
 * reason that is a pure function of it ({@link rawBodyReason}), so `verify --rederive` derives it again.
 * @module
 */
import { Buffer, isAscii } from "node:buffer";
import { assertIJson, isIJson, NotIJsonError } from "../store/canonical.ts";
import { parseJson } from "../core/json_read.ts";
import { concatBytes } from "../core/bytes.ts";
import type { NamedSecret } from "../core/secrets.ts";
import type { CallRecord } from "../core/call_record.ts";
import { keysInResponse, responseContainsKeyError } from "./response_secrets.ts";

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** The most a response bound may be set to. */
export const MAX_RESPONSE_BYTES_LIMIT = 1024 * 1024 * 1024;
/** How much of a body over its bound is kept in the record. */
const OVER_BOUND_KEPT_BYTES = 64 * 1024;

/**
 * A body that was not accepted, as its call record keeps it: its bytes as text (`utf-8`) or `base64`, only the
 * first ones when cut off past the bound (`complete` false, `bytes` then `bound + 1`).
 */
export type RawBody = NonNullable<CallRecord["response_raw"]>;

/**
 * Reads `response`'s body up to `bound` bytes (`complete` false when more arrived: the stream is cancelled),
 * never holding more than `bound` plus one chunk.
 */
export async function readBoundedBody(
  response: Response,
  bound: number,
): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), complete: true };
  const declared = response.type === "basic" ? declaredBodyLength(response.headers) : undefined;
  if (declared !== undefined && declared <= bound) {
    // fetch's own response (not one built in code) of a known length within the bound: the HTTP stack
    // delivers at most the declared bytes, so it is read whole at once.
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength <= bound) return { bytes, complete: true };
    return { bytes: bytes.subarray(0, bound), complete: false };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > bound) {
        chunks.push(value.subarray(0, bound - size));
        size = bound;
        await reader.cancel().catch(() => {});
        return { bytes: concatBytes(chunks), complete: false };
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  return { bytes: concatBytes(chunks), complete: true };
}

/**
 * The body length a response declares, when the bytes read are exactly those sent: a digits-only
 * `content-length` and no `content-encoding` (fetch decompresses, to any size) nor `transfer-encoding`.
 */
export function declaredBodyLength(headers: Headers): number | undefined {
  const length = headers.get("content-length");
  if (length === null || !/^[0-9]{1,15}$/.test(length)) return undefined;
  if (headers.has("content-encoding") || headers.has("transfer-encoding")) return undefined;
  return Number(length);
}

function rawBody(bytes: Uint8Array, complete: boolean, bound: number): RawBody {
  const kept = complete ? bytes : bytes.subarray(0, Math.min(bytes.byteLength, OVER_BOUND_KEPT_BYTES));
  const text = strictUtf8(kept);
  return {
    encoding: text === null ? "base64" : "utf-8",
    data: text ?? Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).toString("base64"),
    bytes: complete ? bytes.byteLength : bound + 1,
    complete,
    bound,
  };
}

/** Lossy UTF-8 (a leading byte order mark dropped): the text a reply is scanned for secrets as. */
const LOSSY_UTF8 = new TextDecoder();

/** Strict UTF-8, a leading byte order mark kept (stateless across calls: none of them streams). */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}

/** Throws {@link NotIJsonError} unless `value` is I-JSON with no integer beyond ±(2^53−1) (counts are exact). */
export function assertResponseIJson(value: unknown, path = "$"): void {
  if (isIJson(value, true)) return; // the walks below name the path to what is refused
  assertIJson(value, path);
  const walk = (v: unknown, p: string): void => {
    if (typeof v === "number") {
      if (Number.isInteger(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER) {
        throw new NotIJsonError(p, `integer ${v} beyond 2^53`);
      }
    } else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${p}[${i}]`));
    else if (v !== null && typeof v === "object") {
      for (const [key, member] of Object.entries(v)) walk(member, `${p}.${key}`);
    }
  };
  walk(value, path);
}

/** What {@link checkBody} makes of a body: `retry` is one that is not JSON; `status` a non-2xx one's text. */
export type CheckedBody =
  | { kind: "ok"; json: unknown }
  | { kind: "status"; text: string }
  | { kind: "failed"; error: string; response?: unknown; raw?: RawBody }
  | { kind: "retry"; error: string; raw: RawBody };

/**
 * The checks of a received body, in one order for both clients: a run secret anywhere in its (lossy) text
 * fails the call at once; a non-2xx body goes back to the caller; a body past its bound, not strict UTF-8
 * (a byte order mark included) or not I-JSON fails at once, one that is not JSON is retried, both kept raw;
 * a secret in its decoded strings fails the call at once.
 */
export function checkBody(
  received: { bytes: Uint8Array; complete: boolean },
  bound: number,
  status: number,
  secrets: readonly NamedSecret[],
): CheckedBody {
  const { bytes, complete } = received;
  const text = LOSSY_UTF8.decode(bytes);
  const inText = keysInResponse(text, undefined, secrets);
  if (inText.length > 0) {
    return { kind: "failed", error: responseContainsKeyError(inText), response: parseOrText(text) };
  }
  if (status < 200 || status >= 300) return { kind: "status", text };
  // ASCII is strict UTF-8 with no byte order mark, decoded alike by both decoders: only other bytes again.
  const strict = !complete ? null : isAscii(bytes) ? text : strictUtf8(bytes);
  const outcome = bodyJson(strict, complete, bound, status);
  if (!outcome.ok) {
    const raw = rawBody(bytes, complete, bound);
    return { kind: outcome.malformed ? "retry" : "failed", error: outcome.reason, raw };
  }
  const inJson = keysInResponse(undefined, outcome.json, secrets);
  if (inJson.length > 0) {
    return { kind: "failed", error: responseContainsKeyError(inJson), response: outcome.json };
  }
  return { kind: "ok", json: outcome.json };
}

/**
 * What a body of HTTP `status` gives (`text`: its strict UTF-8 text, null when not UTF-8): its I-JSON value, or
 * why it is refused (`malformed`: it is not JSON, which the clients retry).
 */
function bodyJson(
  text: string | null,
  complete: boolean,
  bound: number,
  status: number,
): { ok: true; json: unknown } | { ok: false; reason: string; malformed: boolean } {
  const refused = (reason: string, malformed = false) => ({ ok: false as const, reason, malformed });
  if (!complete) return refused(`response body over its ${bound}-byte bound (--max-response-bytes): cut off`);
  if (text === null) return refused("response body is not valid UTF-8");
  let json: unknown;
  try {
    json = parseJson(text, { keepLoneSurrogates: true }); // named below as not I-JSON
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return refused(`malformed JSON response (HTTP ${status}): ${error.message}`, true);
  }
  try {
    assertResponseIJson(json);
  } catch (error) {
    if (!(error instanceof NotIJsonError)) throw error;
    return refused(`response body is not I-JSON: ${error.message}`);
  }
  return { ok: true, json };
}

/** The reason a kept raw body was refused, from the body alone; null when it is in fact acceptable. */
export function rawBodyReason(raw: RawBody, status: number): { reason: string; malformed: boolean } | null {
  const text = raw.encoding === "base64"
    ? strictUtf8(new Uint8Array(Buffer.from(raw.data, "base64")))
    : raw.data;
  const outcome = bodyJson(text, raw.complete, raw.bound, status);
  return outcome.ok ? null : outcome;
}

/** `response` with a body that ends after `bound` bytes, for code that reads a body itself (the SDK). */
export function boundedResponse(response: Response, bound: number): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  let size = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      if (size + value.byteLength > bound) {
        controller.enqueue(value.subarray(0, bound - size));
        size = bound;
        controller.close();
        await reader.cancel().catch(() => {});
        return;
      }
      size += value.byteLength;
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The body as JSON when it parses, else its text (what a failed call stores). */
function parseOrText(text: string): unknown {
  try {
    return parseJson(text, { keepLoneSurrogates: true });
  } catch (error) {
    if (error instanceof SyntaxError) return text;
    throw error;
  }
}
