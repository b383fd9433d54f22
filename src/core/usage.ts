/**
 * Token usage of provider calls: one type and one way to add it, used by every layer.
 * @module
 */
import { z } from "zod";

export const UsageSchema = z.object({
  calls: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

export function emptyUsage(): Usage {
  return { calls: 0, input_tokens: 0, output_tokens: 0 };
}

/** Adds `usage` into `total` (in place) and returns `total`. */
export function addUsage(total: Usage, usage: Usage | undefined | null): Usage {
  if (!usage) return total;
  total.calls += usage.calls;
  total.input_tokens += usage.input_tokens;
  total.output_tokens += usage.output_tokens;
  return total;
}

/** A node's usage: one call per record, and the tokens the records report (a failed call reports none). */
export function usageOfRecords(
  records: readonly { usage?: { input_tokens: number; output_tokens: number } }[],
): Usage {
  const usage: Usage = { calls: records.length, input_tokens: 0, output_tokens: 0 };
  for (const r of records) {
    usage.input_tokens += r.usage?.input_tokens ?? 0;
    usage.output_tokens += r.usage?.output_tokens ?? 0;
  }
  return usage;
}
