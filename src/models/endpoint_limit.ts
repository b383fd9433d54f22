/**
 * One concurrency limit per provider endpoint, shared by every client of the same base URL: a counted
 * semaphore (first in, first out) whose waiting calls resume in their own asynchronous context, so a request
 * carries the identity of the stage that made it (request_identity.ts).
 * @module
 */

const DEFAULT_ENDPOINT_CONCURRENCY = 4;

/** Runs calls at most {@link concurrency} at a time. */
interface EndpointLimit {
  <T>(fn: () => Promise<T> | T): Promise<T>;
  /** The most calls in flight; raising it starts waiting calls at once. */
  concurrency: number;
  readonly activeCount: number;
  readonly pendingCount: number;
}

function checkConcurrency(concurrency: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
}

/** A limiter of `concurrency` calls in flight. */
export function concurrencyLimit(concurrency: number): EndpointLimit {
  checkConcurrency(concurrency);
  let limit = concurrency;
  let active = 0;
  // Resolvers of the waiting calls, first at `head` (a call resolved is handed a slot already counted).
  let waiting: (() => void)[] = [];
  let head = 0;
  const wake = (): void => {
    const resolve = waiting[head++];
    if (head === waiting.length) {
      waiting = [];
      head = 0;
    }
    resolve();
  };
  const release = (): void => {
    // The slot passes to the first waiting call, unless the limit was lowered below the calls in flight.
    if (head < waiting.length && active <= limit) wake();
    else active--;
  };
  const run = async <T>(fn: () => Promise<T> | T): Promise<T> => {
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      release();
    }
  };
  return Object.defineProperties(run, {
    concurrency: {
      get: () => limit,
      set(value: number) {
        checkConcurrency(value);
        limit = value;
        while (active < limit && head < waiting.length) {
          active++;
          wake();
        }
      },
    },
    activeCount: { get: () => active },
    pendingCount: { get: () => waiting.length - head },
  }) as EndpointLimit;
}

const limits = new Map<string, EndpointLimit>();

/** The limiter of `baseURL`; a caller asking for another limit changes it for everyone. */
export function endpointLimit(
  baseURL: string,
  concurrency: number = DEFAULT_ENDPOINT_CONCURRENCY,
): EndpointLimit {
  checkConcurrency(concurrency);
  const key = baseURL.replace(/\/+$/, "");
  let limit = limits.get(key);
  if (limit === undefined) {
    limit = concurrencyLimit(concurrency);
    limits.set(key, limit);
  } else if (limit.concurrency !== concurrency) {
    limit.concurrency = concurrency;
  }
  return limit;
}
