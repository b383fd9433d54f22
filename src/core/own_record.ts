/**
 * A zod record that keeps every key: zod's own `z.record` skips a `__proto__` member, so an id such as
 * `__proto__` (a question id, a gold label's key) would vanish; this one checks each member with `value`
 * and returns an object without a prototype holding all of them.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { ownRecord } from "./own_record.ts";
 * const gold = ownRecord(z.string()).parse(JSON.parse('{"__proto__": "a"}'));
 * Object.keys(gold); // ["__proto__"]
 * ```
 *
 * @module
 */
import { z } from "zod";

/** A record of `value`s by string key, every own key kept (in an object without a prototype). */
export function ownRecord<T extends z.ZodType>(value: T): z.ZodType<Record<string, z.infer<T>>> {
  return z.unknown().transform((input, ctx) => {
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      ctx.addIssue({ code: "custom", message: "expected an object" });
      return z.NEVER;
    }
    const out: Record<string, z.infer<T>> = Object.create(null);
    for (const key of Object.keys(input)) {
      const parsed = value.safeParse((input as Record<string, unknown>)[key]);
      if (parsed.success) out[key] = parsed.data;
      else {
        for (const issue of parsed.error.issues) {
          ctx.addIssue({ code: "custom", message: issue.message, path: [key, ...issue.path] });
        }
      }
    }
    return out;
  }) as unknown as z.ZodType<Record<string, z.infer<T>>>;
}
