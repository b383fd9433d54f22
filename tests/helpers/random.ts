/**
 * A seeded generator for the tests' generated inputs (mulberry32): the same values on every run.
 *
 * @example
 * ```ts ignore
 * const next = random(7);
 * next(); // a number in [0, 1), the same for seed 7 every time
 * ```
 *
 * @module
 */

/** A deterministic generator of numbers in [0, 1) from `seed` (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
