/**
 * Answer scoring shared by the suites: the official HotpotQA answer normalization (lower case, no punctuation,
 * no articles, Python whitespace splitting), used by hotpot's EM/F1 and by the engines' QA recall.
 * @module
 */

const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
// Python str.split() whitespace includes the ASCII separators \x1c-\x1f (intentional control characters).
// deno-lint-ignore no-control-regex
const PY_WHITESPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** Python `str.split()` with no argument. */
export function pySplit(text: string): string[] {
  return text.split(PY_WHITESPACE).filter((t) => t !== "");
}

/** The official answer normalization. */
export function normalizeAnswer(text: string): string {
  let out = "";
  for (const ch of text.toLowerCase()) if (!PUNCTUATION.has(ch)) out += ch;
  return pySplit(out.replace(ARTICLES, " ")).join(" ");
}
