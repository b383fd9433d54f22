/**
 * The one JSON reader for everything this program reads: bounded in depth and size, refusing duplicate keys
 * (I-JSON, RFC 7493) and lone surrogates, objects without a prototype (`__proto__` is an ordinary own key).
 * An iterative scan (no recursion) checks depth and counts keys, `JSON.parse` builds the value, an iterative
 * walk drops prototypes.
 * @module
 */
import { Buffer, isAscii } from "node:buffer";

/** The deepest nesting read anywhere (objects and arrays): deeper texts are refused. */
export const MAX_JSON_DEPTH = 512;

/** Why a text was refused. */
export type JsonRefusal = "depth" | "size" | "duplicate_key" | "lone_surrogate" | "utf8" | "syntax";

/** A JSON text refused by {@link parseJson}: a `SyntaxError` with the reason and the JSON path where found. */
export class JsonReadError extends SyntaxError {
  /** Why the text was refused. */
  readonly reason: JsonRefusal;
  /** Where in the value (`$` for the root; null when unknown). */
  readonly path: string | null;

  /** An error for `reason` at `path`; `detail` says what was found. */
  constructor(reason: JsonRefusal, path: string | null, detail: string) {
    super(path === null ? detail : `${detail} at ${path}`);
    this.name = "SyntaxError";
    this.reason = reason;
    this.path = path;
  }
}

/** Limits of one read. */
export interface JsonLimits {
  /** The deepest nesting accepted (default {@link MAX_JSON_DEPTH}). */
  maxDepth?: number;
  /** The longest text accepted, in UTF-16 code units (default: no limit beyond the caller's read). */
  maxChars?: number;
  /** Keep lone surrogates (default: refused), for a caller that names them its own way (a provider's reply). */
  keepLoneSurrogates?: boolean;
}

const SPACE = 0x20;
/** Bytes of JSON's structure, shared with json_spans.ts. */
export const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c;
export const OPEN_BRACE = 0x7b, CLOSE_BRACE = 0x7d, OPEN_BRACKET = 0x5b, CLOSE_BRACKET = 0x5d;
/** Up to this many keys an object's keys are compared in a list; past it, in a set. */
const LIST_KEYS = 16;
/** A `\u` escape of a surrogate: only texts holding one can decode to a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The JSON path of the scan's open containers: each array's element index, each object's current key. */
function pathOf(
  text: string,
  depth: number,
  isObject: Uint8Array,
  counts: Int32Array,
  keyAt: Int32Array,
  keyEnd: Int32Array,
): string {
  const shown = Math.min(depth, 12);
  let path = "$";
  for (let d = 1; d <= shown; d++) {
    if (isObject[d]) {
      if (keyAt[d] < 0) break;
      path += `.${JSON.parse(text.slice(keyAt[d], keyEnd[d]))}`;
    } else path += `[${counts[d]}]`;
  }
  return depth > shown ? `${path}… (${depth} levels)` : path;
}

/** The end (index of the closing quote) of the string whose opening quote is at `at`, or -1. */
function stringClose(text: string, at: number): number {
  for (let from = at + 1;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let i = quote - 1; i > at && text.charCodeAt(i) === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** Per-level state of a scan, by depth. */
function scratchOf(levels: number) {
  return {
    isObject: new Uint8Array(levels),
    counts: new Int32Array(levels),
    keyAt: new Int32Array(levels),
    keyEnd: new Int32Array(levels),
  };
}

/** Shared by every scan (a scan runs to its end synchronously): no four arrays allocated per parse. */
let scratch = scratchOf(MAX_JSON_DEPTH + 2);

/**
 * The number of object members in `text`; throws a {@link JsonReadError} for nesting deeper than `maxDepth`
 * and, with `keys`, at the first duplicate key. Texts that are not JSON are left to `JSON.parse`.
 */
export function scanJson(text: string, maxDepth: number = MAX_JSON_DEPTH, keys = false): number {
  if (scratch.isObject.length < maxDepth + 2) scratch = scratchOf(maxDepth + 2);
  // Each level's entries are set when the scan opens it, so arrays left by an earlier scan need no clearing.
  const { isObject, counts, keyAt, keyEnd } = scratch;
  const keyLists: string[][] = [];
  const keySets: (Set<string> | null)[] = [];
  let depth = 0;
  let expectKey = false;
  let members = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c <= SPACE) continue; // indentation, most of a pretty-printed text
    if (c === QUOTE) {
      const close = stringClose(text, i);
      if (close < 0) return members; // unterminated: JSON.parse names it
      if (expectKey) {
        expectKey = false;
        members++;
        keyAt[depth] = i;
        keyEnd[depth] = close + 1;
        if (keys) {
          const raw = text.slice(i + 1, close);
          const key = raw.indexOf("\\") < 0 ? raw : String(JSON.parse(text.slice(i, close + 1)));
          const list = keyLists[depth];
          const set = keySets[depth];
          let seen: boolean;
          if (set) {
            seen = set.has(key);
            set.add(key);
          } else {
            seen = list.includes(key);
            list.push(key);
            if (list.length > LIST_KEYS) keySets[depth] = new Set(list);
          }
          if (seen) {
            throw new JsonReadError(
              "duplicate_key",
              pathOf(text, depth, isObject, counts, keyAt, keyEnd),
              `duplicate key ${JSON.stringify(key)} (I-JSON forbids them)`,
            );
          }
        }
      }
      i = close;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > maxDepth) {
        throw new JsonReadError(
          "depth",
          pathOf(text, depth - 1, isObject, counts, keyAt, keyEnd),
          `nested deeper than ${maxDepth} levels`,
        );
      }
      counts[depth] = 0;
      if (c === OPEN_BRACE) {
        isObject[depth] = 1;
        keyAt[depth] = -1;
        if (keys) {
          if (keyLists[depth]) keyLists[depth].length = 0;
          else keyLists[depth] = [];
          keySets[depth] = null;
        }
        expectKey = true;
      } else {
        isObject[depth] = 0;
        expectKey = false;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return members; // unbalanced: JSON.parse names it
      if (keys) keySets[depth] = null;
      depth--;
      expectKey = false;
    } else if (c === COMMA && depth > 0) {
      counts[depth]++;
      expectKey = isObject[depth] === 1;
    }
  }
  return members;
}

/**
 * Drops the prototype of every object in `value` (iteratively) and counts their members; with `strings`,
 * returns false at the first lone surrogate (in a key or a string).
 */
function settle(value: unknown, strings: boolean): number | false {
  if (value === null || typeof value !== "object") {
    return strings && typeof value === "string" && !value.isWellFormed() ? false : 0;
  }
  let members = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        const v = item[i];
        if (v !== null && typeof v === "object") stack.push(v);
        else if (strings && typeof v === "string" && !v.isWellFormed()) return false;
      }
    } else {
      // Prototype first: for-in then sees own members only, whatever Object.prototype holds.
      Object.setPrototypeOf(item, null);
      const record = item as Record<string, unknown>;
      for (const key in record) {
        members++;
        const v = record[key];
        if (v !== null && typeof v === "object") stack.push(v);
        else if (strings && ((typeof v === "string" && !v.isWellFormed()) || !key.isWellFormed())) {
          return false;
        }
      }
    }
  }
  return members;
}

/** The JSON path of the first lone surrogate in `value` (the slow path: only for a value that holds one). */
function surrogatePath(value: unknown): string {
  const stack: [unknown, string][] = [[value, "$"]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === "string") {
      if (!item.isWellFormed()) return path;
    } else if (item !== null && typeof item === "object") {
      const entries = Array.isArray(item)
        ? item.map((v, i) => [v, `${path}[${i}]`] as [unknown, string])
        : Object.keys(item).map((k) =>
          [(item as Record<string, unknown>)[k], `${path}.${k}`] as [unknown, string]
        );
      for (const key of Array.isArray(item) ? [] : Object.keys(item)) if (!key.isWellFormed()) return path;
      stack.push(...entries.reverse());
    }
  }
  return "$";
}

/**
 * Parses a JSON text within `limits`, objects without a prototype; throws a {@link JsonReadError} naming the
 * reason and JSON path (invalid JSON: `JSON.parse`'s `SyntaxError`). A duplicate key shows as fewer members
 * parsed than scanned (`JSON.parse` keeps one); only then is the text scanned again to name it.
 */
export function parseJson(text: string, limits: JsonLimits = {}): unknown {
  if (limits.maxChars !== undefined && text.length > limits.maxChars) {
    throw new JsonReadError(
      "size",
      null,
      `${text.length} characters, more than the ${limits.maxChars} accepted`,
    );
  }
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const members = scanJson(text, maxDepth);
  const value = JSON.parse(text);
  const settled = settle(value, !limits.keepLoneSurrogates && SURROGATE_ESCAPE.test(text));
  if (settled === false) {
    throw new JsonReadError("lone_surrogate", surrogatePath(value), "a lone surrogate (I-JSON forbids them)");
  }
  if (settled !== members) {
    scanJson(text, maxDepth, true);
    throw new JsonReadError("duplicate_key", null, "a duplicate key (I-JSON forbids them)");
  }
  return value;
}

/**
 * Parses a canonical JSON text this program wrote (`canonicalJson` refuses duplicate keys and lone surrogates)
 * to what {@link parseJson} returns, without its scan: only the depth is checked, and a text nested deeper than
 * {@link MAX_JSON_DEPTH} goes to parseJson, which refuses it naming where.
 */
export function parseCanonicalJson(text: string): unknown {
  const value = JSON.parse(text);
  return withinDepth(value) ? value : parseJson(text);
}

/** Drops the prototype of every object in `value` (iteratively); false once it is nested too deep. */
function withinDepth(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > MAX_JSON_DEPTH) return false;
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        const v = item[i];
        if (v !== null && typeof v === "object") {
          stack.push(v);
          depths.push(depth + 1);
        }
      }
    } else {
      Object.setPrototypeOf(item, null); // first: for-in then sees own members only
      const record = item as Record<string, unknown>;
      for (const key in record) {
        const v = record[key];
        if (v !== null && typeof v === "object") {
          stack.push(v);
          depths.push(depth + 1);
        }
      }
    }
  }
  return true;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes bytes as strict UTF-8 (a {@link JsonReadError} `utf8` if they are not) and {@link parseJson}s them. */
export function parseJsonBytes(bytes: Uint8Array, limits: JsonLimits = {}): unknown {
  let text: string;
  try {
    // ASCII (most records) decodes the same as Latin-1, four times faster than a checked UTF-8 decode.
    text = isAscii(bytes)
      ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
      : strictUtf8.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) throw new JsonReadError("utf8", null, "not valid UTF-8");
    throw error;
  }
  return parseJson(text, limits);
}
