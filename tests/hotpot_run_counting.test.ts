/**
 * The token counter's speed-up for hotpot runs stays exact: cutting a text after line breaks (where
 * `lineBreakSplitter` allows it) and summing the pieces' counts equals encoding the whole text, for the shipped
 * Qwen3 tokenizer and the DeepSeek-V3 test tokenizer, on seeded adversarial texts and on real hotpot prompts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assetPath } from "../src/assets.ts";
import { lineBreakSplitter, TokenizerJsonSchema } from "../src/tokens/config.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { readCorpus } from "../src/suites/hotpot/corpus.ts";
import { compactedContext, fullContext, questionUnits } from "../src/suites/hotpot/run/methods.ts";
import { runCli } from "./helpers/spawn.ts";

const TOKENIZERS = {
  qwen3: assetPath("fixtures/tokenizers/qwen3"),
  deepseek_v3: assetPath("tests/fixtures/tokenizers/deepseek_v3"),
};

async function tokenizerJson(dir: string) {
  return TokenizerJsonSchema.parse(JSON.parse(await Deno.readTextFile(join(dir, "tokenizer.json"))));
}

/** Pieces that stress the boundary after a line break: whitespace kinds, combining marks, digits, CJK, emoji. */
const PIECES = [
  "\n",
  "\n",
  "\n",
  "\r\n",
  "\r",
  " \n",
  "\n\n",
  "\t\n",
  "  ",
  " ",
  "\t",
  "\u00a0",
  "\u2028",
  "\u3000",
  "\ufeff",
  ".",
  "...",
  "!?",
  ".\n",
  ":",
  "|",
  "1|",
  "  12|",
  "'s",
  "'S",
  "'ll",
  "word",
  "Word",
  " the",
  "ÉCOLE",
  "naïve",
  "e\u0301",
  "\u0301",
  "\u0308x",
  "1",
  "12",
  "1234567",
  "3.14",
  "中文字",
  "ひらがな",
  "カタカナ",
  "한국어",
  "😀",
  "👍🏽",
  "#",
  "## Title",
  "`code`",
  "-",
  "- item",
  "[a, 3]",
  '{"k": 1}',
  "<|im_start|>",
  "<|im_end|>",
  "<think>",
];

/** A seeded xorshift32 generator (deterministic texts). */
function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

function randomTexts(count: number, seed: number): string[] {
  const next = xorshift(seed);
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(next() * 40);
    return Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join("");
  });
}

for (const [name, dir] of Object.entries(TOKENIZERS)) {
  Deno.test(`${name}: line breaks are exact cut points of its pre-tokenizer`, async () => {
    assert.notEqual(lineBreakSplitter(await tokenizerJson(dir)), null);
  });

  Deno.test(`${name}: counting in lines equals encoding the whole text on adversarial texts`, async () => {
    const counter = await loadTokenCounter(dir);
    for (const text of randomTexts(1500, name.length * 7919)) {
      assert.equal(counter.countText(text), counter.encode(text).length, JSON.stringify(text));
    }
  });
}

Deno.test("an unknown pre-tokenizer pattern or normalizer turns line cutting off", async () => {
  const json = await tokenizerJson(TOKENIZERS.qwen3);
  const changedPattern = structuredClone(json) as Record<string, unknown> & typeof json;
  (changedPattern.pre_tokenizer as { pretokenizers: { pattern?: { Regex: string } }[] }).pretokenizers[0]
    .pattern = { Regex: "\\s?\\p{L}+|\\s+|." };
  assert.equal(lineBreakSplitter(changedPattern), null);
  assert.equal(lineBreakSplitter({ ...json, normalizer: { type: "NFKC" } }), null);
  assert.equal(
    lineBreakSplitter({ ...json, pre_tokenizer: { type: "ByteLevel", use_regex: true } } as typeof json),
    null,
  );
});

Deno.test("qwen3: real hotpot answer inputs count the same in lines as whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hotpot_run_counting_" });
  try {
    const made = await runCli(["hotpot", "collect", "--questions", "4", "--output", join(dir, "c"), "-q"]);
    assert.equal(made.code, 0, made.stderr);
    const { corpus } = await readCorpus(join(dir, "c", "corpus.json"));
    const counter = await loadTokenCounter();
    for (const question of corpus.questions) {
      const units = questionUnits(question);
      const prompts = [
        fullContext(question),
        compactedContext(question, units.slice(0, 7), ""),
        compactedContext(
          question,
          units.slice(3),
          "A summary line.\n[Title, 2] a cited sentence\n  indented",
        ),
      ];
      for (const messages of prompts) {
        const rendered = counter.render(messages);
        assert.equal(counter.countMessages(messages), counter.encode(rendered).length, question.id);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
