/**
 * Shared setup of the models tests: the real default token counter (Qwen3), built once per test file
 * (building it takes about 0.75 s).
 *
 * @module
 */
import { loadTokenCounter } from "../src/tokens/load.ts";
import type { TokenCounter } from "../src/tokens/types.ts";

let counter: Promise<TokenCounter> | undefined;

/** The token counter the reference server and the rule tests use (built once per process). */
export function testCounter(): Promise<TokenCounter> {
  counter ??= loadTokenCounter();
  return counter;
}
