/**
 * A corpus read question by question: one scan of `corpus.json`'s bytes finds where each element of its
 * top-level `questions` array lies, and each question is decoded and parsed alone when asked for. The rest of
 * the file (format, dataset, protocol, selection, shard, gold) is the head, parsed once. A 2,000-question
 * corpus is 120 MB of JSON and several times that as objects: read this way, a run holds its bytes and one
 * question at a time.
 *
 * The scan tracks only strings (and their escapes) and bracket depth; structural characters are ASCII, and
 * no byte of a multi-byte UTF-8 character is below 0x80, so scanning bytes is exact. A file the scan cannot
 * follow (not an object, no `questions` array) yields no index: callers then parse it whole, so that zod
 * names what is wrong.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Where each question of a corpus file lies, and its head (the file without its questions), parsed. */
export interface CorpusIndex {
  /** The parsed file with `questions: []`. */
  head: unknown;
  /** Byte ranges `[start, end)` of the questions' JSON texts, in file order. */
  spans: [number, number][];
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The end (exclusive) of the JSON string starting at `at` (a quote). */
function stringEnd(bytes: Uint8Array, at: number): number {
  for (let i = at + 1; i < bytes.length; i++) {
    if (bytes[i] === BACKSLASH) i++;
    else if (bytes[i] === QUOTE) return i + 1;
  }
  return -1;
}

/** The end (exclusive) of the JSON value starting at `at` (no leading whitespace). */
function valueEnd(bytes: Uint8Array, at: number): number {
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

function skipSpace(bytes: Uint8Array, at: number): number {
  while (at < bytes.length && isSpace(bytes[at])) at++;
  return at;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The index of a corpus file's bytes, or null where the scan cannot follow it (see the module notes). */
export function indexCorpus(bytes: Uint8Array): CorpusIndex | null {
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_BRACE) return null;
  i++;
  while (i < bytes.length) {
    i = skipSpace(bytes, i);
    if (bytes[i] === CLOSE_BRACE) return null; // no questions array
    if (bytes[i] !== QUOTE) return null;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd < 0) return null;
    const key = JSON.parse(decoder.decode(bytes.subarray(i, keyEnd)));
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) return null;
    i = skipSpace(bytes, i + 1);
    const start = i;
    if (key === "questions" && bytes[i] === OPEN_BRACKET) {
      const spans: [number, number][] = [];
      i = skipSpace(bytes, i + 1);
      while (bytes[i] !== CLOSE_BRACKET) {
        const end = valueEnd(bytes, i);
        if (end < 0) return null;
        spans.push([i, end]);
        i = skipSpace(bytes, end);
        if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1);
        else if (bytes[i] !== CLOSE_BRACKET) return null;
      }
      const head = JSON.parse(
        decoder.decode(bytes.subarray(0, start)) + "[]" + decoder.decode(bytes.subarray(i + 1)),
      );
      return { head, spans };
    }
    const end = valueEnd(bytes, start);
    if (end < 0) return null;
    i = skipSpace(bytes, end);
    if (bytes[i] === COMMA) i++;
  }
  return null;
}

/** The question at `span` of the indexed bytes, parsed (raw JSON, not validated). */
export function questionAt(bytes: Uint8Array, span: readonly [number, number]): unknown {
  return JSON.parse(decoder.decode(bytes.subarray(span[0], span[1])));
}
