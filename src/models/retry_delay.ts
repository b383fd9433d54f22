/**
 * Retry timing for clients that retry by themselves: exponential backoff, or the delay the server asks for;
 * and how a failed connection is described.
 * @module
 */

/**
 * The 0-based attempt number of one logical call, sent on every attempt: the reference server's fault mode
 * keys on it, so which attempts fault does not depend on timing or on a request the HTTP stack re-sent.
 */
export const ATTEMPT_HEADER = "x-compaction-bench-attempt";

/** Backoff settings (ms); `maxDelayMs` bounds server-requested delays too. */
export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** The delay (ms) `retry-after-ms` or `Retry-After` (seconds or an HTTP date) asks for, or undefined. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const millis = headers.get("retry-after-ms");
  if (millis !== null) {
    const value = Number(millis);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null) return undefined;
  const seconds = Number(after);
  if (after.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/** The delay before retry `retry` (1 = first): the server's, else `baseDelayMs * 2^(retry-1)`, capped; no jitter. */
export function retryDelayMs(retry: number, options: BackoffOptions, requested?: number): number {
  const delay = requested ?? options.baseDelayMs * 2 ** (retry - 1);
  return Math.min(delay, options.maxDelayMs);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A failed fetch's message (its cause's, when it has one). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.cause instanceof Error ? error.cause.message : error.message;
  return String(error);
}
