/**
 * The prebuilt BPE ranks (`bpe_ranks.jsonl`): the shipped file is the one the script makes from the shipped
 * tokenizer, counts from it equal the library's own encoding of the same texts, and a missing or stale file is
 * not used.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Tokenizer } from "@huggingface/tokenizers";
import { assetPath, DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { BPE_RANKS_FILE, bpeRanksText, byteLevelSymbols, readBpeRanks } from "../src/tokens/bpe_ranks.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const TEXTS = [
  "The quick brown fox jumps over the lazy dog.",
  "  leading spaces,   runs   of spaces\tand tabs\t\tthen\n\n\nnew lines  \n  indented",
  "Numbers 1234567 and 3.14159, dates 2026-12-01, ids #A-42_b",
  "Unicode: café, naïve, Ünïcödé, e\u0301 (decomposed), ﬁ ligature",
  "中文文本，日本語のテキスト、한국어 텍스트",
  "Emoji 👩‍👩‍👧‍👦 and 🏳️‍🌈 mixed with text!!! ??? ...",
  "it's we're they've I'm you'll he'd IT'S WE'RE",
  'code: fn main() { let x = vec![1, 2, 3]; println!("{x:?}"); }',
  "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
  "a".repeat(3000) + " " + "xyzzy".repeat(500),
  "trailing spaces   ",
  "",
];

async function library(dir: string): Promise<{ tokenizer: Tokenizer; json: unknown; bytes: Uint8Array }> {
  const bytes = await Deno.readFile(`${dir}/tokenizer.json`);
  const json = JSON.parse(new TextDecoder().decode(bytes));
  const config = JSON.parse(await Deno.readTextFile(`${dir}/tokenizer_config.json`));
  return { tokenizer: new Tokenizer(json, config), json, bytes };
}

/** The demo corpus' documents: every paragraph text of the shipped HotpotQA fixture. */
async function demoTexts(): Promise<string[]> {
  const records = JSON.parse(await Deno.readTextFile(assetPath("fixtures/hotpot/demo.json"))) as {
    context: [string, string[]][];
  }[];
  return records.flatMap((record) =>
    record.context.map(([title, sentences]) => `${title}\n${sentences.join("")}`)
  );
}

Deno.test("the shipped bpe_ranks.jsonl is what scripts/gen_bpe_ranks.ts makes from the shipped tokenizer.json", async () => {
  const { json, bytes } = await library(DEFAULT_TOKENIZER_DIR);
  const made = bpeRanksText(json, sha256(bytes));
  assert.ok("text" in made, "refused" in made ? made.refused : "");
  const shipped = await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/${BPE_RANKS_FILE}`);
  assert.ok(shipped === made.text, "stale: run deno run -A scripts/gen_bpe_ranks.ts");
  const ranks = await readBpeRanks(DEFAULT_TOKENIZER_DIR, sha256(bytes));
  assert.ok(ranks);
  assert.equal(ranks.ranks.size, (json as { model: { merges: unknown[] } }).model.merges.length);
  assert.equal(ranks.ranks.get(JSON.stringify(["Ġ", "Ġ"])), 0);
});

Deno.test("counts from the prebuilt ranks equal the library's encoding: battery texts and the demo corpus", async () => {
  const counter = await loadTokenCounter();
  assert.equal(counter.fromPrebuiltRanks, true);
  const { tokenizer } = await library(DEFAULT_TOKENIZER_DIR);
  const texts = [...TEXTS, ...await demoTexts()];
  assert.ok(texts.length > 100);
  for (const text of texts) {
    const whole = tokenizer.encode(text, { add_special_tokens: false }).ids.length;
    assert.equal(counter.countText(text), whole, JSON.stringify(text.slice(0, 80)));
  }
  // Token ids still come from the library built from tokenizer.json.
  assert.deepEqual(counter.encode(TEXTS[0]), tokenizer.encode(TEXTS[0], { add_special_tokens: false }).ids);
});

Deno.test("a missing or stale bpe_ranks.jsonl is not used: the tokenizer is built from tokenizer.json", async () => {
  const { tokenizer } = await library(DEFAULT_TOKENIZER_DIR);
  for (const variant of ["missing", "stale"] as const) {
    const dir = await Deno.makeTempDir({ prefix: "bpe_ranks_" });
    try {
      for (const file of ["tokenizer.json", "tokenizer_config.json"]) {
        await Deno.copyFile(`${DEFAULT_TOKENIZER_DIR}/${file}`, `${dir}/${file}`);
      }
      if (variant === "stale") {
        // Another tokenizer's ranks (its hash differs), with the first two merges swapped.
        const lines = (await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/${BPE_RANKS_FILE}`)).split("\n");
        lines[0] = lines[0].replace(
          /"tokenizer_sha256":"[0-9a-f]{64}"/,
          `"tokenizer_sha256":"${"0".repeat(64)}"`,
        );
        [lines[1], lines[2]] = [lines[2], lines[1]];
        await Deno.writeTextFile(`${dir}/${BPE_RANKS_FILE}`, lines.join("\n"));
      }
      const counter = await loadTokenCounter(dir);
      assert.equal(counter.fromPrebuiltRanks, false, variant);
      for (const text of TEXTS) {
        assert.equal(
          counter.countText(text),
          tokenizer.encode(text, { add_special_tokens: false }).ids.length,
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("no ranks file is made where counting from it would not be exact", () => {
  const symbols = byteLevelSymbols();
  assert.equal(new Set(symbols).size, 256);
  const vocab = Object.fromEntries([...symbols, "ab"].map((s, i) => [s, i]));
  const base = {
    pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Split" }, { type: "ByteLevel" }] },
    model: { type: "BPE", vocab, merges: [["a", "b"]], unk_token: null },
  };
  const sha = "0".repeat(64);
  assert.ok("text" in bpeRanksText(base, sha));
  const refused = (json: unknown) => "refused" in bpeRanksText(json, sha);
  assert.ok(
    refused({ ...base, model: { ...base.model, merges: [["a", "c"]] } }),
    "a merge result not in vocab",
  );
  assert.ok(refused({ ...base, model: { ...base.model, ignore_merges: true } }));
  assert.ok(refused({ ...base, model: { ...base.model, unk_token: "<unk>" } }));
  assert.ok(refused({ ...base, model: { ...base.model, byte_fallback: true } }));
  assert.ok(refused({ ...base, model: { ...base.model, dropout: 0.1 } }));
  assert.ok(refused({ ...base, model: { ...base.model, vocab: { ab: 0 } } }), "byte-level symbols missing");
  assert.ok(refused({ ...base, pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Split" }] } }));
  assert.ok(refused({ ...base, model: { ...base.model, type: "Unigram" } }));
});

Deno.test("the rank table answers as a Map of the same lines: every merge, repeats, absent keys", async () => {
  const { RankTable } = await import("../src/tokens/bpe_ranks.ts");
  const lines = ['["a","b"]', '["ab","c"]', '["a","b"]', '["x","y"]', '["é","😀"]', '["\\n","\\\\"]', ""];
  const text = `header\n${lines.join("\n")}\n`;
  const table = new RankTable(text, text.indexOf("\n") + 1);
  const map = new Map<string, number>();
  lines.forEach((line, rank) => map.set(line, rank));
  assert.equal(table.size, map.size);
  for (const key of [...lines, '["a","c"]', '["a","b"', "", "header", '["x","y"]x']) {
    assert.equal(table.get(key), map.get(key), JSON.stringify(key));
  }
  // The shipped file: every line's rank, as the library's own map of tokenizer.json's merges has it.
  const { json, bytes } = await library(DEFAULT_TOKENIZER_DIR);
  const ranks = await readBpeRanks(DEFAULT_TOKENIZER_DIR, sha256(bytes));
  assert.ok(ranks);
  const merges = (json as { model: { merges: [string, string][] } }).model.merges;
  const expected = new Map(merges.map((merge, rank) => [JSON.stringify(merge), rank]));
  assert.equal(ranks.ranks.size, expected.size);
  for (const [key, rank] of expected) assert.equal(ranks.ranks.get(key), rank);
});
