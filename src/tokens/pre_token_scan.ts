/**
 * The pre-tokens of the Qwen2/Qwen3 `Split` pattern, found by a scanner instead of the regex. The library
 * compiles tokenizer.json's pattern to {@link QWEN_SPLIT_SOURCE} (flags `gu`); `String.prototype.match` with it
 * gives a line's pre-tokens as strings, one allocation each, before any is looked up (a new line has ~70). The
 * scanner finds the same matches as offsets into the text, so a pre-token whose count is cached is looked up in
 * place and never made a string.
 *
 * At each position the pattern's alternatives are tried in order, as the regex does (classes of code points:
 * L letter, N number, W White_Space other than CR/LF, B CR or LF, O anything else, a lone surrogate included):
 *
 * 1. `'s 't 're 've 'm 'll 'd`, each letter in either ASCII case;
 * 2. `[^\r\n\p{L}\p{N}]?\p{L}+`: a letter run, with one O or W code point before it;
 * 3. `\p{N}`: one number code point;
 * 4. ` ?[^\s\p{L}\p{N}]+[\r\n]*`: an O run (after one U+0020 space), then any CR and LF;
 * 5. `\s*[\r\n]+`: a White_Space run holding a CR or LF ends just after its last one (the greedy `\s*` gives
 *    back until `[\r\n]+` matches, which then cannot go on: that break was the last);
 * 6. `\s+(?!\S)`: a White_Space run at the end of the text whole, else all but its last code point (when it
 *    has two or more);
 * 7. `\s+`: the run (a single White_Space code point before a non-space).
 *
 * Every code point starts one of these (an L starts 2, N 3, O 4, W and B 5 to 7), so the matches cover the text.
 * tests/tokens_pre_token_scan.test.ts compares the scanner with the regex on generated text of every class
 * and on the demo corpus.
 *
 * @module
 */

/** The source of the regex the library compiles the Qwen2/Qwen3 `Split` pattern to (flags `gu`). */
export const QWEN_SPLIT_SOURCE =
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?" +
  "[^\\p{White_Space}\\p{L}\\p{N}]+[\\r\\n]*|\\p{White_Space}*[\\r\\n]+|\\p{White_Space}+(?!\\P{White_Space})|" +
  "\\p{White_Space}+";

const OTHER = 0;
const LETTER = 1;
const NUMBER = 2;
/** White_Space other than CR and LF. */
const SPACE = 3;
/** CR or LF. */
const BREAK = 4;

const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;
const IS_SPACE = /^\p{White_Space}$/u;

/** The class of one code point (as a string), by the regex's own property escapes. */
function classify(char: string): number {
  if (char === "\r" || char === "\n") return BREAK;
  if (IS_LETTER.test(char)) return LETTER;
  if (IS_NUMBER.test(char)) return NUMBER;
  if (IS_SPACE.test(char)) return SPACE;
  return OTHER;
}

/** Classes of the BMP code units, + 1 (0: not classified yet); ASCII filled at load, the rest when met. */
const BMP_CLASSES = new Uint8Array(0x10000);
for (let u = 0; u < 0x80; u++) BMP_CLASSES[u] = classify(String.fromCharCode(u)) + 1;

/** Classes of astral code points met so far. */
const ASTRAL_CLASSES = new Map<number, number>();

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** UTF-16 units of the code point at `i` (2 for a surrogate pair, else 1). */
function widthAt(text: string, i: number): number {
  return isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
}

/** The class of the code point at `i` (a lone surrogate is one code point, of class O). */
function classAt(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  let known = BMP_CLASSES[unit];
  if (known !== 0) {
    if (!isHigh(unit)) return known - 1;
  } else if (!isHigh(unit)) {
    BMP_CLASSES[unit] = known = classify(String.fromCharCode(unit)) + 1;
    return known - 1;
  }
  // A high surrogate: with a low one after it, an astral code point; alone, a lone surrogate.
  if (i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
    const point = text.codePointAt(i)!;
    let cls = ASTRAL_CLASSES.get(point);
    if (cls === undefined) ASTRAL_CLASSES.set(point, cls = classify(String.fromCodePoint(point)));
    return cls;
  }
  if (known === 0) BMP_CLASSES[unit] = known = classify(String.fromCharCode(unit)) + 1;
  return known - 1;
}

/** Classes of the ASCII units (no +1). */
const ASCII_CLASSES = BMP_CLASSES.slice(0, 0x80).map((known) => known - 1);

/** Where the run of letters starting at `i` ends. */
function letterRunEnd(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      if (ASCII_CLASSES[unit] !== LETTER) return i;
      i++;
    } else {
      if (classAt(text, i) !== LETTER) return i;
      i += widthAt(text, i);
    }
  }
  return i;
}

/** Where the run of O code points starting at `i` ends. */
function otherRunEnd(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      if (ASCII_CLASSES[unit] !== OTHER) return i;
      i++;
    } else {
      if (classAt(text, i) !== OTHER) return i;
      i += widthAt(text, i);
    }
  }
  return i;
}

/** The end of the pattern's match at `p` (< text.length): see the module doc for the alternatives. */
function matchEnd(text: string, p: number): number {
  const n = text.length;
  const unit = text.charCodeAt(p);
  if (unit === 0x27 && p + 1 < n) {
    // 1. Contractions (`| 0x20` maps only an ASCII capital to its small letter among these).
    const a = text.charCodeAt(p + 1) | 0x20;
    if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return p + 2; // s t m d
    if (p + 2 < n) {
      const b = text.charCodeAt(p + 2) | 0x20;
      if ((a === 0x72 || a === 0x76) && b === 0x65) return p + 3; // re ve
      if (a === 0x6c && b === 0x6c) return p + 3; // ll
    }
  }
  const ascii = unit < 0x80;
  const cls = ascii ? ASCII_CLASSES[unit] : classAt(text, p);
  const width = ascii ? 1 : widthAt(text, p);
  if (cls === LETTER) return letterRunEnd(text, p + width); // 2.
  if ((cls === OTHER || cls === SPACE) && p + width < n && classAt(text, p + width) === LETTER) {
    return letterRunEnd(text, p + width); // 2., with the code point before the letters
  }
  if (cls === NUMBER) return p + width; // 3.
  let q = -1;
  if (cls === OTHER) q = p + width;
  else if (unit === 0x20 && p + 1 < n && classAt(text, p + 1) === OTHER) q = p + 1 + widthAt(text, p + 1);
  if (q !== -1) {
    // 4. The rest of the O run, then CR and LF.
    q = otherRunEnd(text, q);
    while (q < n && (text.charCodeAt(q) === 0x0a || text.charCodeAt(q) === 0x0d)) q++;
    return q;
  }
  // A White_Space run (every White_Space code point is in the BMP: one unit each).
  let end = p;
  let lastBreak = -1;
  while (end < n) {
    const unit = text.charCodeAt(end);
    const k = unit < 0x80 ? ASCII_CLASSES[unit] : classAt(text, end);
    if (k === BREAK) lastBreak = end;
    else if (k !== SPACE) break;
    end++;
  }
  if (lastBreak !== -1) return lastBreak + 1; // 5.
  if (end === n || end - p === 1) return end; // 6. at the end of the text, or 7.
  return end - 1; // 6.
}

/** Grown as needed: the end offsets of one text's pre-tokens. */
let ends = new Int32Array(1024);

/**
 * The pre-tokens of `text` under {@link QWEN_SPLIT_SOURCE}, as end offsets: the returned array's first
 * `count` entries (pre-token `i` runs from entry `i - 1`, or 0, to entry `i`). The array is reused by the next
 * call.
 */
export function qwenPreTokenEnds(text: string): { ends: Int32Array; count: number } {
  if (ends.length < text.length) ends = new Int32Array(Math.max(text.length, ends.length * 2));
  let count = 0;
  for (let p = 0; p < text.length; p = ends[count++]) ends[count] = matchEnd(text, p);
  return { ends, count };
}
