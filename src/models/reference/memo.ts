/**
 * A bounded memo for the reference model's pure text functions: the model reads the same article sentences
 * in many requests, so their words and stems are worked out once.
 * @module
 */
import { FifoMap } from "../../core/fifo_map.ts";

const MEMO_LIMIT = 20_000;

/** `fn` with its results remembered by key, at most {@link MEMO_LIMIT} of them (the oldest dropped first). */
export function memoize<T>(fn: (key: string) => T): (key: string) => T {
  const memo = new FifoMap<string, T>(MEMO_LIMIT);
  return (key) => {
    if (memo.has(key)) return memo.get(key) as T;
    const value = fn(key);
    memo.set(key, value);
    return value;
  };
}
