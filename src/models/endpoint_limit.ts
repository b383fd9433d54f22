/**
 * One concurrency limit per provider endpoint, shared by every client that talks to the same base URL, so
 * two clients of one endpoint never exceed its limit together.
 *
 * @module
 */
import pLimit, { type LimitFunction } from "p-limit";

/** Default number of requests in flight per endpoint. */
export const DEFAULT_ENDPOINT_CONCURRENCY = 4;

const limits = new Map<string, LimitFunction>();

/**
 * The limiter of `baseURL` (trailing slashes ignored). The first caller's `concurrency` creates it; a later
 * caller asking for a different limit changes it for everyone (the latest setting holds).
 */
export function endpointLimit(
  baseURL: string,
  concurrency: number = DEFAULT_ENDPOINT_CONCURRENCY,
): LimitFunction {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const key = baseURL.replace(/\/+$/, "");
  let limit = limits.get(key);
  if (limit === undefined) {
    limit = pLimit(concurrency);
    limits.set(key, limit);
  } else if (limit.concurrency !== concurrency) {
    limit.concurrency = concurrency;
  }
  return limit;
}
