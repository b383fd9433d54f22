/**
 * A copy of a value exactly as `JSON.parse(JSON.stringify(value))` makes it, made structurally for plain
 * values; anything else (another prototype, `toJSON`, `__proto__`, a bigint, nesting past
 * {@link FAST_COPY_DEPTH}) goes through the JSON text, so the result or error is always the round trip's.
 * @module
 */

/** How deep the structural copy goes before it leaves the value to the JSON round trip. */
export const FAST_COPY_DEPTH = 64;

/** Thrown inside the structural copy when the value needs the JSON round trip. */
class NeedsRoundTrip extends Error {}

/** `JSON.parse(JSON.stringify(value))`, made without the text when it can be. */
export function jsonCopy<T>(value: T): T {
  try {
    const copied = copy(value, 0);
    if (copied !== undefined) return copied as T;
  } catch (error) {
    if (!(error instanceof NeedsRoundTrip)) throw error;
  }
  return JSON.parse(JSON.stringify(value));
}

/** What JSON makes of a value inside an object or array; undefined when an object leaves it out. */
function copy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "bigint":
      throw new NeedsRoundTrip();
  }
  if (value === null) return null;
  if (depth >= FAST_COPY_DEPTH) throw new NeedsRoundTrip();
  const prototype = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype || "toJSON" in value) throw new NeedsRoundTrip();
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], depth + 1) ?? null;
    return out;
  }
  if ((prototype !== Object.prototype && prototype !== null) || "toJSON" in (value as object)) {
    throw new NeedsRoundTrip();
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (key === "__proto__") throw new NeedsRoundTrip();
    const member = copy(source[key], depth + 1);
    if (member !== undefined) out[key] = member;
  }
  return out;
}
