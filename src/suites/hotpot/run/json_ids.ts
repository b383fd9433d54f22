/**
 * JSON parsing that keeps a number inside a list written with a fraction or exponent (`2.0`, `2e0`) as its
 * source text, so scoring treats such a supporting-fact id as malformed. Bounded as every read (json_read.ts).
 *
 * @module
 */
import { MAX_JSON_DEPTH, scanJson } from "../../../core/json_read.ts";

/** The reviver context of ES2025 JSON.parse source text access (supported by V8, hence Deno). */
interface ReviverContext {
  source?: string;
}

/** `JSON.parse(text)`, except that a non-integer-literal number in an array stays its source text. */
export function parseJsonKeepingDecimalIds(text: string): unknown {
  scanJson(text, MAX_JSON_DEPTH, true); // before the reviver, which recurses
  return JSON.parse(
    text,
    function (this: unknown, _key: string, value: unknown, context?: ReviverContext) {
      if (typeof value === "number" && Array.isArray(this) && context?.source !== undefined) {
        if (/[.eE]/.test(context.source)) return context.source;
      }
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        Object.setPrototypeOf(value, null);
      }
      return value;
    } as (key: string, value: unknown) => unknown,
  );
}
