/**
 * The proof a fast check owes its schema: over 20,000 generated values, whatever the fast check accepts the
 * schema accepts (the fast check is one-sided: a no leaves the decision to the schema).
 *
 * @example
 * ```ts ignore
 * assertOneSided("ranking", isPlainRanking, StoredRankingSchema, makeRanking, { seed: 33 });
 * ```
 *
 * @module
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import { random } from "./random.ts";

/**
 * Asserts `fast` accepts only values `schema` accepts, over 20,000 values `make` generates from `seed`; the
 * generator must make over 2,000 values the fast check accepts and, unless `someLeftToSchema` is false, some
 * only the schema accepts (so a check that refuses everything, or accepts everything, is noticed).
 */
export function assertOneSided(
  name: string,
  fast: (value: unknown) => boolean,
  schema: z.ZodType,
  make: (next: () => number) => unknown,
  options: { seed: number; someLeftToSchema?: boolean },
): void {
  const next = random(options.seed);
  let accepted = 0;
  let zodOnly = 0;
  for (let i = 0; i < 20_000; i++) {
    const value = make(next);
    const zod = schema.safeParse(value).success;
    if (fast(value)) {
      accepted++;
      assert.ok(zod, `${name}: the fast check accepted what the schema refuses: ${Deno.inspect(value)}`);
    } else if (zod) zodOnly++;
  }
  assert.ok(accepted > 2_000, `${name}: ${accepted} accepted by the fast check`);
  if (options.someLeftToSchema !== false) {
    assert.ok(zodOnly > 0, `${name}: some values only the schema accepts (left to it)`);
  }
}
