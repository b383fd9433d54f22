/**
 * Where the values of a JSON text lie, found by scanning its bytes (strings and brackets only), so a large file
 * is parsed element by element; a text the scan cannot follow yields null.
 * @module
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  parseJson,
  QUOTE,
} from "./json_read.ts";

/** A byte range `[start, end)` of a JSON text. */
export type Span = [number, number];

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The index of the first non-whitespace byte at or after `at`. */
export function skipSpace(bytes: Uint8Array, at: number): number {
  while (at < bytes.length && isSpace(bytes[at])) at++;
  return at;
}

/** The end (exclusive) of the JSON string starting at `at` (a quote), or -1. */
export function stringEnd(bytes: Uint8Array, at: number): number {
  for (let from = at + 1;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let i = quote - 1; i > at && bytes[i] === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The end (exclusive) of the JSON value starting at `at` (no leading whitespace), or -1. */
export function valueEnd(bytes: Uint8Array, at: number): number {
  let depth = 0;
  for (let i = at; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      const end = stringEnd(bytes, i);
      if (end < 0) return -1;
      if (depth === 0) return end;
      i = end - 1;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return i; // a scalar ended by its container
    } else if (depth === 0 && (b === COMMA || isSpace(b))) {
      return i; // a scalar ended
    }
  }
  return depth === 0 ? bytes.length : -1;
}

/** The element spans and end (exclusive) of the JSON array starting at `at` (its `[`), or null. */
export function arrayElementSpans(bytes: Uint8Array, at: number): { spans: Span[]; end: number } | null {
  if (bytes[at] !== OPEN_BRACKET) return null;
  const spans: Span[] = [];
  let i = skipSpace(bytes, at + 1);
  while (bytes[i] !== CLOSE_BRACKET) {
    if (i >= bytes.length) return null;
    const end = valueEnd(bytes, i);
    if (end < 0 || end === i) return null;
    spans.push([i, end]);
    i = skipSpace(bytes, end);
    if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1);
    else if (bytes[i] !== CLOSE_BRACKET) return null;
  }
  return { spans, end: i + 1 };
}

/** The spans of the elements of a JSON text that is one array (whitespace around it allowed), or null. */
export function topLevelArraySpans(bytes: Uint8Array): Span[] | null {
  const found = arrayElementSpans(bytes, skipSpace(bytes, 0));
  if (!found || skipSpace(bytes, found.end) !== bytes.length) return null;
  return found.spans;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The text of `span` of the bytes (strict UTF-8: a malformed byte throws a TypeError). */
export function spanText(bytes: Uint8Array, span: readonly [number, number]): string {
  return decoder.decode(bytes.subarray(span[0], span[1]));
}

/** The value at `span` of the bytes, parsed (not validated). */
export function parseSpan(bytes: Uint8Array, span: readonly [number, number]): unknown {
  return parseJson(spanText(bytes, span));
}
