/**
 * The scanner of the Qwen2/Qwen3 pre-tokens (`src/tokens/pre_token_scan.ts`) finds exactly the matches of the
 * regex the library compiles the shipped tokenizer's `Split` pattern to: on generated text of every class of
 * code point (letters, numbers, every White_Space, CR/LF, contractions in both cases, marks, symbols, astral
 * and lone surrogates), on every BMP code unit in several contexts, and on the demo corpus; and counts by
 * pre-token through it equal the library's encoding.
 */
import assert from "node:assert/strict";
import { Tokenizer } from "@huggingface/tokenizers";
import { assetPath, DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { QWEN_SPLIT_SOURCE, qwenPreTokenEnds } from "../src/tokens/pre_token_scan.ts";
import { preTokenCounter } from "../src/tokens/pre_token_count.ts";

async function library(): Promise<{ tokenizer: Tokenizer; json: { model: Record<string, unknown> } }> {
  const json = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer.json`));
  const config = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer_config.json`));
  return { tokenizer: new Tokenizer(json, config), json };
}

const shipped = await library();

/** The library's compiled `Split` pattern of the shipped tokenizer. */
function shippedPattern(): RegExp {
  const { tokenizer } = shipped;
  const steps = (tokenizer as unknown as { pre_tokenizer: { tokenizers: { pattern?: unknown }[] } })
    .pre_tokenizer.tokenizers;
  const pattern = steps[0].pattern;
  assert.ok(pattern instanceof RegExp);
  return pattern;
}

/** The scanner's pre-tokens of `text`, as strings. */
function scanned(text: string): string[] {
  const { ends, count } = qwenPreTokenEnds(text);
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    pieces.push(text.slice(start, ends[i]));
    start = ends[i];
  }
  return pieces;
}

function assertSameCut(pattern: RegExp, text: string): void {
  assert.deepEqual(scanned(text), text.match(pattern) ?? [], JSON.stringify(text));
}

/** Pieces of every class the pattern tells apart, and their edges. */
const POOL = [
  "a",
  "Z",
  "é",
  "ß",
  "中",
  "ǅ", // titlecase letter
  "ʰ", // modifier letter
  "\u{1D400}", // astral letter
  "\u{1F600}", // astral symbol
  "1",
  "٣", // Arabic-Indic digit
  "Ⅷ", // letter number
  "²", // other number
  "\u{1D7D8}", // astral digit
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\u000b",
  "\u000c",
  "\u0085",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u3000",
  "\ufeff", // not White_Space
  "\u200b", // not White_Space
  "'",
  "'s",
  "'S",
  "'t",
  "'re",
  "'RE",
  "'rE",
  "'ve",
  "'Ve",
  "'m",
  "'ll",
  "'lL",
  "'d",
  "'x",
  "'r",
  "'l",
  "(",
  ".",
  ",",
  "-",
  '"',
  "\\",
  "$",
  "_",
  "\u0301", // combining mark
  "ſ", // long s: a letter, never a contraction
  "K", // Kelvin sign
  "\ud800", // lone high surrogate
  "\udc00", // lone low surrogate
  "\ud83d", // a high surrogate that may meet a low one
  "\ude00",
  "\u0000",
];

Deno.test("the shipped tokenizer's Split compiles to the scanned pattern", () => {
  const pattern = shippedPattern();
  assert.equal(pattern.source, QWEN_SPLIT_SOURCE);
  assert.equal(pattern.flags, "gu");
});

Deno.test("the scanner cuts generated text of every class as the library's regex does", () => {
  const pattern = shippedPattern();
  let state = 20261201;
  const next = (n: number) => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n;
  for (let round = 0; round < 60_000; round++) {
    let text = "";
    for (let i = 1 + next(14); i > 0; i--) text += POOL[next(POOL.length)];
    assertSameCut(pattern, text);
  }
});

Deno.test("the scanner cuts every BMP code unit, alone and between other classes, as the regex does", () => {
  const pattern = shippedPattern();
  for (let unit = 0; unit < 0x10000; unit++) {
    const c = String.fromCharCode(unit);
    for (const text of [c, `a${c}b`, ` ${c}1`, `${c}${c}\n `, `'${c}`, `  ${c}`, `${c} x`]) {
      assertSameCut(pattern, text);
    }
  }
});

Deno.test("the scanner cuts the demo corpus as the regex does", async () => {
  const pattern = shippedPattern();
  const records = JSON.parse(await Deno.readTextFile(assetPath("fixtures/hotpot/demo.json"))) as {
    question: string;
    answer: string;
    context: [string, string[]][];
  }[];
  let pieces = 0;
  for (const record of records) {
    const texts = [record.question, record.answer, ...record.context.flatMap(([t, s]) => [t, ...s])];
    const text = texts.join("\n");
    assertSameCut(pattern, text);
    pieces += qwenPreTokenEnds(text).count;
  }
  assert.ok(pieces > 100_000, `${pieces} pre-tokens`);
});

Deno.test("counts through the scanner equal the library's encoding of generated text", () => {
  const { tokenizer, json } = shipped;
  const count = preTokenCounter(tokenizer, true, json.model);
  assert.ok(count);
  let state = 7;
  const next = (n: number) => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n;
  const words = [...POOL, "the", "river", "Kraków", "naïve", "1999", " ...", "!!", "\n\n", "e\u0301"];
  for (let round = 0; round < 3_000; round++) {
    let text = "";
    for (let i = 1 + next(30); i > 0; i--) text += words[next(words.length)];
    const whole = tokenizer.encode(text, { add_special_tokens: false }).ids.length;
    assert.equal(count(text), whole, JSON.stringify(text));
  }
});
