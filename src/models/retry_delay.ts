/**
 * Retry timing for clients that retry by themselves: exponential backoff, or the delay the server asks for
 * with `retry-after-ms` (milliseconds) or `Retry-After` (seconds or an HTTP date).
 *
 * @module
 */

/**
 * Header carrying the 0-based attempt number of one logical call, sent by the chat and decision clients on
 * every attempt. The reference server's fault mode uses it (when present) instead of counting identical
 * bodies, so which attempts fault does not depend on timing, on identical requests in flight at once, or on
 * a connection the HTTP stack silently re-sent.
 */
export const ATTEMPT_HEADER = "x-compaction-bench-attempt";

/** Backoff settings. */
export interface BackoffOptions {
  /** Delay before the first retry (ms). */
  baseDelayMs: number;
  /** Upper bound of any delay (ms), also for server-requested ones. */
  maxDelayMs: number;
}

/**
 * The server-requested delay in ms from `retry-after-ms` or `Retry-After`, or undefined when absent or
 * unreadable. `now` is the current time in ms since the epoch (for HTTP dates).
 */
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

/**
 * The delay before retry number `retry` (1 = first retry): the server's request when given, otherwise
 * `baseDelayMs * 2^(retry-1)`; both capped at `maxDelayMs`. No jitter, so runs are repeatable.
 */
export function retryDelayMs(retry: number, options: BackoffOptions, requested?: number): number {
  const delay = requested ?? options.baseDelayMs * 2 ** (retry - 1);
  return Math.min(delay, options.maxDelayMs);
}
