/**
 * A zod record that keeps every key: zod's `z.record` skips a `__proto__` member, so an id `__proto__` would
 * vanish; this one returns an object without a prototype (`Object.keys` then lists `__proto__`).
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
