import assert from "node:assert/strict";
import { Tokenizer } from "@huggingface/tokenizers";
import { assetPath, DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { preTokenCounter } from "../src/tokens/pre_token_count.ts";

async function build(
  dir: string,
): Promise<{ tokenizer: Tokenizer; json: { model: Record<string, unknown> } }> {
  const json = JSON.parse(await Deno.readTextFile(`${dir}/tokenizer.json`));
  const config = JSON.parse(await Deno.readTextFile(`${dir}/tokenizer_config.json`));
  return { tokenizer: new Tokenizer(json, config), json };
}

const TEXTS = [
  "The quick brown fox jumps over the lazy dog.",
  "  leading spaces,   runs   of spaces\tand tabs\t\tthen\n\n\nnew lines  \n  indented",
  "Numbers 1234567 and 3.14159, dates 2026-12-01, ids #A-42_b",
  "Unicode: café, naïve, Ünïcödé, e\u0301 (decomposed), ﬁ ligature",
  "中文文本，日本語のテキスト、한국어 텍스트",
  "Emoji 👩‍👩‍👧‍👦 and 🏳️‍🌈 mixed with text!!! ??? ...",
  "it's we're they've I'm you'll he'd IT'S WE'RE",
  'code: fn main() { let x = vec![1, 2, 3]; println!("{x:?}"); }',
  "trailing spaces   ",
  "",
];

for (
  const [name, dir] of [
    ["qwen3", DEFAULT_TOKENIZER_DIR],
    ["deepseek_v3", assetPath("tests/fixtures/tokenizers/deepseek_v3")],
  ] as const
) {
  Deno.test(`${name}: counting by cached pre-tokens equals encoding each text whole, twice over`, async () => {
    const { tokenizer, json } = await build(dir);
    const count = preTokenCounter(tokenizer, true, json.model);
    assert.ok(count, "per-pre-token counting applies to this tokenizer");
    for (const round of [1, 2]) { // the second round is answered from the cache
      for (const text of TEXTS) {
        const whole = tokenizer.encode(text, { add_special_tokens: false }).ids.length;
        assert.equal(count(text), whole, `round ${round}: ${JSON.stringify(text)}`);
      }
    }
  });
}

Deno.test("counting by pre-token is refused where it may not be exact: BPE dropout, another model, unsafe splits", async () => {
  const { tokenizer, json } = await build(DEFAULT_TOKENIZER_DIR);
  assert.equal(preTokenCounter(tokenizer, true, { ...json.model, dropout: 0.1 }), null);
  assert.equal(preTokenCounter(tokenizer, true, { type: "Unigram" }), null);
  assert.equal(preTokenCounter(tokenizer, false, json.model), null);
});

Deno.test("a Split whose matches leave gaps, or match empty text, cuts as the library does (qwen3 with other patterns)", async () => {
  for (const regex of ["\\p{L}+", "\\p{L}+|[^\\p{L}]|", "\\p{L}*"]) {
    const json = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer.json`));
    const config = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer_config.json`));
    json.pre_tokenizer.pretokenizers[0].pattern = { Regex: regex };
    const tokenizer = new Tokenizer(json, config);
    const count = preTokenCounter(tokenizer, true, json.model);
    assert.ok(count);
    for (const text of TEXTS) {
      const whole = tokenizer.encode(text, { add_special_tokens: false }).ids.length;
      assert.equal(count(text), whole, `${regex}: ${JSON.stringify(text)}`);
    }
  }
});
