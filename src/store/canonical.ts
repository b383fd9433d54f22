/**
 * Canonical JSON (RFC 8785, JCS) for every hashed record, with a strict I-JSON (RFC 7493) gate in front:
 * values JSON cannot represent exactly are refused with an error naming the path to the bad value, instead of
 * being silently dropped or rounded by `JSON.stringify`.
 *
 * @module
 */
import canonicalize from "canonicalize";

/** The value is not I-JSON; `path` locates it (e.g. `$.nodes[3].params.seed`). */
export class NotIJsonError extends TypeError {
  /** JSONPath-like location of the offending value. */
  readonly path: string;
  /** Creates the error for the value at `path`. */
  constructor(path: string, what: string) {
    super(`not I-JSON at ${path}: ${what}`);
    this.name = "NotIJsonError";
    this.path = path;
  }
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** From here on ECMAScript (and so RFC 8785) writes numbers in exponent form, e.g. `1e+21`. */
const EXPONENT_FORM = 1e21;

function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return true;
    }
    if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Throws {@link NotIJsonError} unless `value` is I-JSON: null, booleans, finite numbers (integers written as
 * plain digits only within ±(2^53−1); magnitudes from 1e21 on, written in exponent form, are accepted), strings without lone surrogates, arrays, and plain objects of those. Refuses NaN, ±Infinity,
 * undefined (also as an object member), functions, symbols, BigInt, Map, Set, typed arrays, Dates and any other
 * class instance.
 */
export function assertIJson(value: unknown, path = "$"): void {
  switch (typeof value) {
    case "string":
      if (hasLoneSurrogate(value)) throw new NotIJsonError(path, "string with a lone surrogate");
      return;
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw new NotIJsonError(path, `number ${value}`);
      // An integer beyond 2^53 written as plain digits claims an exactness a double cannot give (RFC 7493
      // §2.2). From 1e21 on, RFC 8785 writes the number in exponent form (`1e+21`): plainly a double, accepted.
      if (Number.isInteger(value) && Math.abs(value) > MAX_SAFE && Math.abs(value) < EXPONENT_FORM) {
        throw new NotIJsonError(path, `integer ${value} beyond 2^53`);
      }
      return;
    case "undefined":
      throw new NotIJsonError(path, "undefined");
    case "bigint":
      throw new NotIJsonError(path, "BigInt");
    case "function":
      throw new NotIJsonError(path, "function");
    case "symbol":
      throw new NotIJsonError(path, "symbol");
  }
  if (value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new NotIJsonError(`${path}[${i}]`, "array hole");
      assertIJson(value[i], `${path}[${i}]`);
    }
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const kind = (value as object).constructor?.name ?? "object with a custom prototype";
    throw new NotIJsonError(path, kind);
  }
  if (Object.getOwnPropertySymbols(value).length > 0) throw new NotIJsonError(path, "symbol key");
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    if (hasLoneSurrogate(key)) throw new NotIJsonError(childPath(path, key), "key with a lone surrogate");
    assertIJson(member, childPath(path, key));
  }
}

/** RFC 8785 canonical JSON text of an I-JSON value (see {@link assertIJson}). */
export function canonicalJson(value: unknown): string {
  assertIJson(value);
  const text = canonicalize(value);
  if (text === undefined) throw new NotIJsonError("$", "no JSON representation");
  return text;
}

/** UTF-8 bytes of {@link canonicalJson}. */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}
