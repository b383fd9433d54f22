/**
 * Canonical JSON (RFC 8785) behind a strict I-JSON (RFC 7493) gate that names the path to a refused value; one
 * native `JSON.stringify` of ordered members, or member by member where it would reorder.
 * @module
 */

/** The value is not I-JSON; `path` locates it (e.g. `$.nodes[3].params.seed`). */
export class NotIJsonError extends TypeError {
  readonly path: string;
  constructor(path: string, what: string) {
    super(`not I-JSON at ${path}: ${what}`);
    this.name = "NotIJsonError";
    this.path = path;
  }
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** From here on ECMAScript (and so RFC 8785) writes numbers in exponent form, e.g. `1e+21`. */
const EXPONENT_FORM = 1e21;

/** A number I-JSON refuses: not finite, or an integer written as digits beyond ±(2^53−1). */
function refusedNumber(value: number): boolean {
  if (!Number.isFinite(value)) return true;
  return Number.isInteger(value) && Math.abs(value) > MAX_SAFE && Math.abs(value) < EXPONENT_FORM;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Throws {@link NotIJsonError} unless `value` is I-JSON (integers as digits only within ±(2^53−1)). */
export function assertIJson(value: unknown, path = "$"): void {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) throw new NotIJsonError(path, "string with a lone surrogate");
      return;
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw new NotIJsonError(path, `number ${value}`);
      // RFC 7493 §2.2: digits beyond 2^53 claim an exactness a double lacks; from 1e21 on it is exponent form.
      if (refusedNumber(value)) throw new NotIJsonError(path, `integer ${value} beyond 2^53`);
      return;
    case "object":
      break;
    default: // undefined, function, symbol, BigInt
      throw new NotIJsonError(path, typeof value === "bigint" ? "BigInt" : typeof value);
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
    if (!key.isWellFormed()) throw new NotIJsonError(childPath(path, key), "key with a lone surrogate");
    assertIJson(member, childPath(path, key));
  }
}

/** True when {@link assertIJson} accepts `value`; `exactIntegers` also refuses exponent-form integers. */
export function isIJson(value: unknown, exactIntegers = false): boolean {
  switch (typeof value) {
    case "string":
      return value.isWellFormed();
    case "number":
      return !refusedNumber(value) &&
        !(exactIntegers && Number.isInteger(value) && Math.abs(value) > MAX_SAFE);
    case "boolean":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !isIJson(value[i], exactIntegers)) return false;
    }
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  for (const key of Object.keys(value)) {
    if (!key.isWellFormed() || !isIJson((value as Record<string, unknown>)[key], exactIntegers)) return false;
  }
  return true;
}

/** Thrown inside {@link serialize} at the first value I-JSON refuses (no stack trace to capture). */
const REFUSED: unique symbol = Symbol("not I-JSON");

/** RFC 8785 text of `value`, throwing {@link REFUSED} where {@link assertIJson} refuses. */
function serialize(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(ordered(value));
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw REFUSED;
      if (i > 0) text += ",";
      text += serialize(value[i]);
    }
    return text + "]";
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw REFUSED;
  if (Object.getOwnPropertySymbols(value).length > 0) throw REFUSED;
  // The default sort orders by UTF-16 code units, as RFC 8785 requires.
  const keys = Object.keys(value).sort();
  let text = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (!key.isWellFormed()) throw REFUSED;
    if (i > 0) text += ",";
    text += JSON.stringify(key) + ":" + serialize((value as Record<string, unknown>)[key]);
  }
  return text + "}";
}

/** Thrown inside {@link ordered} where the native writer would not keep the order given. */
const BY_MEMBER: unique symbol = Symbol("written member by member");

/** Whether `key` looks like an array index: `JSON.stringify` writes those first, in numeric order. */
function integerLike(key: string): boolean {
  const c = key.charCodeAt(0);
  return c >= 0x30 && c <= 0x39 && /^(?:0|[1-9][0-9]*)$/.test(key);
}

/** Sorts distinct `keys` in place by UTF-16 code units (insertion sort for the usual few keys). */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
}

/** `value`, or a copy with its objects' members in code-unit order; throws {@link REFUSED} or {@link BY_MEMBER}. */
function ordered(value: unknown): unknown {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) throw REFUSED;
      return value;
    case "number":
      if (refusedNumber(value)) throw REFUSED;
      return value;
    case "boolean":
      return value;
    case "object":
      break;
    default:
      throw REFUSED;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") throw BY_MEMBER;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw REFUSED;
      const element = value[i];
      const written = ordered(element);
      if (copy === undefined && written !== element) copy = value.slice(0, i);
      if (copy !== undefined) copy.push(written);
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw REFUSED;
  if (Object.getOwnPropertySymbols(value).length > 0) throw REFUSED;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    if (!keys[i].isWellFormed()) throw REFUSED;
    if (i > 0 && !(keys[i - 1] < keys[i])) inOrder = false;
  }
  if (!inOrder) {
    sortKeys(keys);
    const copy: Record<string, unknown> = {};
    for (const key of keys) {
      if (integerLike(key) || key === "__proto__") throw BY_MEMBER;
      copy[key] = ordered(record[key]);
    }
    return copy;
  }
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const member = record[key];
    const written = ordered(member);
    if (copy === undefined && written !== member) {
      copy = {};
      for (let j = 0; j < i; j++) {
        if (keys[j] === "__proto__") throw BY_MEMBER;
        copy[keys[j]] = record[keys[j]];
      }
    }
    if (copy !== undefined) {
      if (key === "__proto__") throw BY_MEMBER;
      copy[key] = written;
    }
  }
  return copy ?? value;
}

/**
 * RFC 8785 canonical JSON text of an I-JSON value (see {@link assertIJson}).
 * @example
 * ```ts
 * canonicalJson({ b: 1e21, a: [true, "é"] }); // '{"a":[true,"é"],"b":1e+21}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  try {
    // An inherited `toJSON` method would be called by the native writer on every object.
    if (typeof (Object.prototype as { toJSON?: unknown }).toJSON !== "function") {
      try {
        return JSON.stringify(ordered(value));
      } catch (error) {
        if (error !== BY_MEMBER) throw error;
      }
    }
    return serialize(value);
  } catch (error) {
    if (error !== REFUSED) throw error;
    assertIJson(value); // names the path to the refused value
    throw new NotIJsonError("$", "no JSON representation");
  }
}

export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}
