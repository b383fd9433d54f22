/**
 * A provider's response body is hostile input: it is read up to a bound (default 8 MiB,
 * `--max-response-bytes`; whole at once when fetch's response declares a length within it, else
 * incrementally) and cut off past it, decoded as strict UTF-8 and parsed as JSON, and refused unless
 * it is I-JSON (no lone surrogates, no integer beyond 2^53, no non-finite number). A refused body is kept as
 * its raw bytes ({@link RawBody}) in the call record, and the call fails with the reason; the reason is a
 * pure function of the raw body ({@link rawBodyReason}), so `verify --rederive` derives it again from the
 * record.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { assertIJson, isIJson, NotIJsonError } from "../store/canonical.ts";
import { parseJson } from "../core/json_read.ts";

/** The default bound of a provider's response body: 8 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** The most a response bound may be set to (1 GiB). */
export const MAX_RESPONSE_BYTES_LIMIT = 1024 * 1024 * 1024;
/** How much of a body over its bound is kept in the record (its first 64 KiB). */
export const OVER_BOUND_KEPT_BYTES = 64 * 1024;

/** A body that was not accepted, as its call record keeps it. */
export interface RawBody {
  /** `utf-8`: `data` is the bytes as text (they were valid UTF-8); `base64`: they were not. */
  encoding: "utf-8" | "base64";
  data: string;
  /** How many bytes were received (at most `bound + 1`: reading stops past the bound). */
  bytes: number;
  /** False when the body was cut off past the bound (then `data` holds its first bytes only). */
  complete: boolean;
  /** The bound in force. */
  bound: number;
}

/** A body read up to a bound. */
export interface BoundedBody {
  bytes: Uint8Array;
  /** False when more than `bound` bytes arrived (reading stopped there). */
  complete: boolean;
}

/**
 * Reads `response`'s body up to `bound` bytes: whole at once when it is a response of fetch that declares a
 * length within the bound ({@link declaredBodyLength}), else incrementally, keeping at most `bound` bytes; once more arrive the
 * stream is cancelled and `complete` is false. Never holds more than `bound` plus one chunk.
 */
export async function readBoundedBody(response: Response, bound: number): Promise<BoundedBody> {
  if (!response.body) return { bytes: new Uint8Array(0), complete: true };
  const declared = response.type === "basic" ? declaredBodyLength(response.headers) : undefined;
  if (declared !== undefined && declared <= bound) {
    // A response of fetch itself (type `basic`; one built in code is read incrementally, whatever it
    // declares) whose length is known and within the bound: read whole at once. The HTTP stack delivers at
    // most the declared bytes, and fails as the incremental read does when fewer arrive.
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
        return { bytes: concat(chunks, size), complete: false };
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  return { bytes: concat(chunks, size), complete: true };
}

/**
 * The body length a response declares, when the bytes read are exactly those sent: a `content-length` of
 * digits only, and no `content-encoding` (fetch decompresses such a body, to any size: the declared length
 * is the compressed one) nor `transfer-encoding` (which overrides a declared length). Undefined otherwise.
 */
export function declaredBodyLength(headers: Headers): number | undefined {
  const length = headers.get("content-length");
  if (length === null || !/^[0-9]{1,15}$/.test(length)) return undefined;
  if (headers.has("content-encoding") || headers.has("transfer-encoding")) return undefined;
  return Number(length);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** What a body decodes to: I-JSON, or a refusal with its reason and the raw body to keep. */
export type DecodedBody =
  | { ok: true; json: unknown; text: string }
  | { ok: false; reason: string; raw: RawBody; malformed: boolean };

/** The raw form of `bytes` to keep in a record. */
export function rawBody(bytes: Uint8Array, complete: boolean, bound: number): RawBody {
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

/**
 * Throws {@link NotIJsonError} unless `value` is I-JSON as a response must be: {@link assertIJson}, and no
 * integer beyond ±(2^53−1) at all (a response's counts must be exact).
 */
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

/**
 * Decodes a body: past its bound, not UTF-8, not JSON (`malformed`, which callers may retry) or not I-JSON
 * is refused with the reason ({@link rawBodyReason} of its raw form).
 */
export function decodeBody(bytes: Uint8Array, complete: boolean, bound: number, status: number): DecodedBody {
  const raw = () => rawBody(bytes, complete, bound);
  if (!complete) return { ok: false, reason: overBound(bound), raw: raw(), malformed: false };
  const text = strictUtf8(bytes);
  if (text === null) return { ok: false, reason: NOT_UTF8, raw: raw(), malformed: false };
  const outcome = parseText(text, status);
  if (outcome.ok) return { ok: true, json: outcome.json, text };
  return { ok: false, reason: outcome.reason, raw: raw(), malformed: outcome.malformed };
}

const NOT_UTF8 = "response body is not valid UTF-8";

function overBound(bound: number): string {
  return `response body over its ${bound}-byte bound (--max-response-bytes): cut off`;
}

function parseText(
  text: string,
  status: number,
): { ok: true; json: unknown } | { ok: false; reason: string; malformed: boolean } {
  let json: unknown;
  try {
    json = parseJson(text, { keepLoneSurrogates: true }); // named below as not I-JSON
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return {
      ok: false,
      reason: `malformed JSON response (HTTP ${status}): ${error.message}`,
      malformed: true,
    };
  }
  try {
    assertResponseIJson(json);
  } catch (error) {
    if (!(error instanceof NotIJsonError)) throw error;
    return { ok: false, reason: `response body is not I-JSON: ${error.message}`, malformed: false };
  }
  return { ok: true, json };
}

/**
 * The reason a kept raw body was refused, derived from the body alone (the parse rule of docs/FORMAT.md):
 * cut off past its bound, not UTF-8, not JSON, or not I-JSON; null when the raw body is in fact acceptable
 * (a record that says otherwise does not follow from its response).
 */
export function rawBodyReason(raw: RawBody, status: number): { reason: string; malformed: boolean } | null {
  if (!raw.complete) return { reason: overBound(raw.bound), malformed: false };
  if (raw.encoding === "base64") {
    const text = strictUtf8(new Uint8Array(Buffer.from(raw.data, "base64")));
    if (text === null) return { reason: NOT_UTF8, malformed: false };
    const outcome = parseText(text, status);
    return outcome.ok ? null : outcome;
  }
  const outcome = parseText(raw.data, status);
  return outcome.ok ? null : outcome;
}

/**
 * `response` with a body that ends after `bound` bytes (the rest is never read: the source is cancelled), for
 * code that reads a body itself (the SDK reading an error's body).
 */
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
export function parseOrText(text: string): unknown {
  try {
    return parseJson(text, { keepLoneSurrogates: true });
  } catch (error) {
    if (error instanceof SyntaxError) return text;
    throw error;
  }
}
