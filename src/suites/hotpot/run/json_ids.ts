/**
 * JSON parsing that keeps how a number inside a list was written. Supporting-fact ids must be integers written
 * as integers: `2.0` or `2e0` is a malformed id (no credit), although `JSON.parse` reads both as 2. This parse
 * keeps any number that sits in an array and is written with a fraction or an exponent as its source text
 * (a string, which scoring treats as malformed); numbers elsewhere (an object's field, such as a numeric
 * answer) parse as usual.
 *
 * Bounded as every read (src/core/json_read.ts): at most 512 deep, no duplicate key (a `JsonReadError`, a
 * `SyntaxError`, naming the path); objects have no prototype.
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
