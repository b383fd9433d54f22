/**
 * A corpus read question by question: one scan (`core/json_spans.ts`) finds each `questions` element, parsed
 * alone when asked for; the rest is the head. A file it cannot follow yields no index (parse it whole).
 * @module
 */
import {
  arrayElementSpans,
  parseSpan,
  skipSpace,
  type Span,
  spanText,
  stringEnd,
  valueEnd,
} from "../../core/json_spans.ts";
import { parseJson } from "../../core/json_read.ts";

const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Where each question of a corpus file lies, and its head (the file without its questions), parsed. */
export interface CorpusIndex {
  /** The parsed file with `questions: []`. */
  head: unknown;
  /** Byte ranges `[start, end)` of the questions' JSON texts, in file order. */
  spans: Span[];
}

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
    const key = parseSpan(bytes, [i, keyEnd]);
    i = skipSpace(bytes, keyEnd);
    if (bytes[i] !== COLON) return null;
    i = skipSpace(bytes, i + 1);
    const start = i;
    if (key === "questions") {
      const array = arrayElementSpans(bytes, start);
      if (!array) return null;
      const head = parseJson(spanText(bytes, [0, start]) + "[]" + spanText(bytes, [array.end, bytes.length]));
      return { head, spans: array.spans };
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
  return parseSpan(bytes, span);
}
