/**
 * Shards: `--shard K/N` runs the K-th of N deterministic parts of a run's work (joined by `merge`); the shard is
 * in the run header, never in a node key.
 * @module
 */
import { z } from "zod";
import { sha256Hex } from "../store/hash.ts";

/** One shard: part `index` (1-based) of `count`. */
export const ShardSchema = z.object({
  index: z.number().int().positive(),
  count: z.number().int().positive(),
}).refine((s) => s.index <= s.count, { message: "the shard index must be between 1 and the count" });
export type Shard = z.infer<typeof ShardSchema>;

export const MAX_SHARDS = 10_000;

/** Zod type of the `--shard K/N` option: the text `K/N` with 1 ≤ K ≤ N ≤ 10,000. */
export const ShardOption = z.string().transform((text, ctx): Shard => {
  const m = /^([0-9]+)\/([0-9]+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || index < 1 || count < 1 || index > count || count > MAX_SHARDS) {
    ctx.addIssue({ code: "custom", message: `expected K/N with 1 ≤ K ≤ N ≤ ${MAX_SHARDS}` });
    return z.NEVER;
  }
  return { index, count };
});

export const SHARD_OPTION_HELP =
  "  --shard K/N          run only the K-th of N deterministic parts of the work (see 'merge')";

/** True when question `id` is in `shard` (every question is when there is no shard). */
export function questionInShard(id: string, shard: Shard | undefined): boolean {
  return shard === undefined ||
    Number.parseInt(sha256Hex(id).slice(0, 8), 16) % shard.count === shard.index - 1;
}

/** True when generation `g` (0-based) is in `shard`. */
export function generationInShard(generation: number, shard: Shard | undefined): boolean {
  return shard === undefined || generation % shard.count === shard.index - 1;
}

/** `K/N`, as the option is written. */
export function shardText(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
