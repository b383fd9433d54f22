/**
 * The prebuilt BPE merges (`bpe_ranks.bin`): the shipped file is the one the script makes from the shipped
 * tokenizer, counts from it equal the library's own encoding of the same texts (and of generated words, short
 * and long, merged by scan and by heap), its table answers as the library's merge map, and a missing, stale or
 * cut-short file is not used.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Tokenizer } from "@huggingface/tokenizers";
import { assetPath, DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import {
  BPE_RANKS_FILE,
  bpeRanksBytes,
  byteLevelSymbols,
  MergeTable,
  readBpeRanks,
} from "../src/tokens/bpe_ranks.ts";
import { bpePartCounter, SCAN_LIMIT } from "../src/tokens/bpe_ranks.ts";
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

type Model = { vocab: Record<string, number>; merges: [string, string][] };

Deno.test("the shipped bpe_ranks.bin is what scripts/gen_bpe_ranks.ts makes from the shipped tokenizer.json", async () => {
  const { json, bytes } = await library(DEFAULT_TOKENIZER_DIR);
  const made = bpeRanksBytes(json, sha256(bytes));
  assert.ok("bytes" in made, "refused" in made ? made.refused : "");
  const shipped = await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/${BPE_RANKS_FILE}`);
  assert.ok(sha256(shipped) === sha256(made.bytes), "stale: run deno run -A scripts/gen_bpe_ranks.ts");
  const ranks = await readBpeRanks(DEFAULT_TOKENIZER_DIR, sha256(bytes));
  assert.ok(ranks);
  const model = (json as { model: Model }).model;
  assert.equal(ranks.merges.size, model.merges.length);
  // The table read from the file is the one the merges build.
  const start = shipped.indexOf(0x0a) + 1;
  const merges = new Int32Array(shipped.slice(start, start + model.merges.length * 12).buffer);
  const built = new MergeTable(merges);
  assert.equal(built.size, ranks.merges.size);
  assert.deepEqual(built.slots, ranks.merges.slots);
  assert.equal(ranks.merges.rank(model.vocab["Ġ"], model.vocab["Ġ"]), 0);
  assert.equal(ranks.merges.result(0), model.vocab["ĠĠ"]);
  assert.deepEqual([...ranks.byteIds], byteLevelSymbols().map((symbol) => model.vocab[symbol]));
});

/** Words of `length` characters drawn from `alphabet` by a seeded generator. */
function words(alphabet: string[], length: number, count: number, seed: number): string[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
  return Array.from({ length: count }, () => {
    let word = "";
    for (let i = 0; i < length; i++) word += alphabet[Math.floor(next() * alphabet.length)];
    return word;
  });
}

Deno.test("each pre-token's count from the prebuilt merges is the library's BPE count: by scan and by heap", async () => {
  const { tokenizer } = await library(DEFAULT_TOKENIZER_DIR);
  const ranks = await readBpeRanks(
    DEFAULT_TOKENIZER_DIR,
    sha256(await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer.json`)),
  );
  assert.ok(ranks);
  const count = bpePartCounter(ranks.merges, ranks.byteIds);
  const stages = tokenizer as unknown as {
    pre_tokenizer: { tokenizers: { pre_tokenize(text: string, o: object): string[] }[] };
    model: { encode(tokens: string[]): string[] };
  };
  const byteLevel = stages.pre_tokenizer.tokenizers.at(-1)!;
  const expected = (word: string) =>
    stages.model.encode(byteLevel.pre_tokenize(word, { section_index: 0 })).length;
  const alphabets = [
    [..."ab"],
    [..."etaoin shrdlu"],
    [..."0123456789"],
    [..."aé中😀 \n\t.-"],
    ["a", "\ud83d", "b"], // a lone surrogate: written as U+FFFD, as the library's TextEncoder does
  ];
  const lengths = [1, 2, 3, 7, SCAN_LIMIT - 1, SCAN_LIMIT, SCAN_LIMIT + 1, 200, 3000];
  let checked = 0;
  for (const [a, alphabet] of alphabets.entries()) {
    for (const length of lengths) {
      for (const word of words(alphabet, length, length > 500 ? 2 : 20, 7 * a + length)) {
        assert.equal(count(word), expected(word), JSON.stringify(word.slice(0, 60)));
        checked++;
      }
    }
  }
  for (const word of ["", "a".repeat(5000), "ab".repeat(2000), "1".repeat(999), " ".repeat(4097)]) {
    assert.equal(count(word), expected(word), `${JSON.stringify(word.slice(0, 10))} × ${word.length}`);
  }
  assert.ok(checked > 500);
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

Deno.test("a missing, stale, cut-short or full-table bpe_ranks.bin is not used: the tokenizer is built from tokenizer.json", async () => {
  const { tokenizer } = await library(DEFAULT_TOKENIZER_DIR);
  for (const variant of ["missing", "stale", "cut short", "no empty slot", "earlier format"] as const) {
    const dir = await Deno.makeTempDir({ prefix: "bpe_ranks_" });
    try {
      for (const file of ["tokenizer.json", "tokenizer_config.json"]) {
        await Deno.copyFile(`${DEFAULT_TOKENIZER_DIR}/${file}`, `${dir}/${file}`);
      }
      if (variant === "stale") {
        // Another tokenizer's ranks (its hash differs), with the first two merges swapped.
        const shipped = await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/${BPE_RANKS_FILE}`);
        const start = shipped.indexOf(0x0a) + 1;
        const header = new TextDecoder().decode(shipped.subarray(0, start)).replace(
          /"tokenizer_sha256":"[0-9a-f]{64}"/,
          `"tokenizer_sha256":"${"0".repeat(64)}"`,
        );
        const stale = new Uint8Array(shipped);
        stale.set(new TextEncoder().encode(header));
        stale.set(shipped.subarray(start, start + 12), start + 12);
        stale.set(shipped.subarray(start + 12, start + 24), start);
        await Deno.writeFile(`${dir}/${BPE_RANKS_FILE}`, stale);
      }
      if (variant === "no empty slot" || variant === "earlier format") {
        // The right tokenizer's file with every slot of its table taken (a lookup would never end), or its
        // header naming the format before the table was stored.
        const shipped = new Uint8Array(await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/${BPE_RANKS_FILE}`));
        const start = shipped.indexOf(0x0a) + 1;
        const header = JSON.parse(new TextDecoder().decode(shipped.subarray(0, start - 1)));
        if (variant === "no empty slot") {
          const slots = new DataView(shipped.buffer, start + header.merges * 12);
          for (let i = 0; i < header.slots; i++) {
            if (slots.getInt32(i * 4, true) === 0) slots.setInt32(i * 4, 1, true);
          }
        } else {
          const text = new TextDecoder().decode(shipped.subarray(0, start));
          shipped.set(new TextEncoder().encode(text.replace("bpe-ranks@3", "bpe-ranks@2")));
        }
        await Deno.writeFile(`${dir}/${BPE_RANKS_FILE}`, shipped);
      }
      if (variant === "cut short") {
        // The right tokenizer's file, its last merge missing.
        const shipped = await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/${BPE_RANKS_FILE}`);
        await Deno.writeFile(`${dir}/${BPE_RANKS_FILE}`, shipped.subarray(0, shipped.length - 12));
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

Deno.test("a bpe_ranks.bin read whole: one byte longer is not used; a directory fails as Deno.readFile fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bpe_ranks_read_" });
  try {
    const shipped = await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/${BPE_RANKS_FILE}`);
    const tokenizerSha = sha256(await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer.json`));
    assert.notEqual(await readBpeRanks(DEFAULT_TOKENIZER_DIR, tokenizerSha), null);
    const longer = new Uint8Array(shipped.length + 1);
    longer.set(shipped);
    await Deno.writeFile(`${dir}/${BPE_RANKS_FILE}`, longer);
    assert.equal(await readBpeRanks(dir, tokenizerSha), null);
    await Deno.remove(`${dir}/${BPE_RANKS_FILE}`);
    await Deno.mkdir(`${dir}/${BPE_RANKS_FILE}`);
    const expected = await Deno.readFile(`${dir}/${BPE_RANKS_FILE}`).then(
      () => null,
      (error: Error) => error,
    );
    assert.ok(expected instanceof Error);
    await assert.rejects(readBpeRanks(dir, tokenizerSha), (error: Error) => {
      assert.equal(error.constructor, expected.constructor);
      assert.equal(error.message, expected.message);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
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
  assert.ok("bytes" in bpeRanksBytes(base, sha));
  const refused = (json: unknown) => "refused" in bpeRanksBytes(json, sha);
  assert.ok(
    refused({ ...base, model: { ...base.model, merges: [["a", "c"]] } }),
    "a merge result not in vocab",
  );
  assert.ok(refused({ ...base, model: { ...base.model, ignore_merges: true } }));
  assert.ok(refused({ ...base, model: { ...base.model, unk_token: "<unk>" } }));
  assert.ok(refused({ ...base, model: { ...base.model, byte_fallback: true } }));
  assert.ok(refused({ ...base, model: { ...base.model, dropout: 0.1 } }));
  assert.ok(refused({ ...base, model: { ...base.model, vocab: { ab: 0 } } }), "byte-level symbols missing");
  assert.ok(refused({ ...base, model: { ...base.model, vocab: { ...vocab, ab: 0 } } }), "two tokens, one id");
  assert.ok(refused({ ...base, pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Split" }] } }));
  assert.ok(refused({ ...base, model: { ...base.model, type: "Unigram" } }));
});

Deno.test("the merge table answers as the library's map of the same merges: every merge, repeats, absent pairs", async () => {
  // Ranks 0..3: (1,2)→10, (10,3)→11, (1,2)→10 again, (4,5)→12; a repeated pair keeps its last rank.
  const table = new MergeTable(Int32Array.from([1, 2, 10, 10, 3, 11, 1, 2, 10, 4, 5, 12]));
  assert.equal(table.size, 3);
  assert.deepEqual([table.rank(1, 2), table.rank(10, 3), table.rank(4, 5)], [2, 1, 3]);
  assert.deepEqual([table.rank(2, 1), table.rank(1, 3), table.rank(-1, 2), table.rank(0, 0)], [
    -1,
    -1,
    -1,
    -1,
  ]);
  assert.deepEqual([table.result(1), table.result(2), table.result(3)], [11, 10, 12]);
  // The shipped file: every merge's rank, as the library's own map of tokenizer.json's merges has it.
  const { json, bytes } = await library(DEFAULT_TOKENIZER_DIR);
  const ranks = await readBpeRanks(DEFAULT_TOKENIZER_DIR, sha256(bytes));
  assert.ok(ranks);
  const { vocab, merges } = (json as { model: Model }).model;
  const expected = new Map(merges.map((merge, rank) => [JSON.stringify(merge), rank]));
  for (const [left, right] of merges) {
    const rank = ranks.merges.rank(vocab[left], vocab[right]);
    assert.equal(rank, expected.get(JSON.stringify([left, right])));
    assert.equal(ranks.merges.result(rank), vocab[left + right]);
  }
});

Deno.test("with prebuilt ranks, tokenizer.json is read again for token ids, and refused if it changed since the load", async () => {
  const { tokenizer, bytes } = await library(DEFAULT_TOKENIZER_DIR);
  const dir = await Deno.makeTempDir({ prefix: "bpe_ranks_" });
  try {
    for (const file of ["tokenizer.json", "tokenizer_config.json", BPE_RANKS_FILE]) {
      await Deno.copyFile(`${DEFAULT_TOKENIZER_DIR}/${file}`, `${dir}/${file}`);
    }
    const counter = await loadTokenCounter(dir);
    assert.equal(counter.fromPrebuiltRanks, true);
    assert.equal(counter.hash, (await loadTokenCounter()).hash, "the streamed hash is the file's");
    const changed = await loadTokenCounter(dir); // the same loaded tokenizer (one per directory)
    await Deno.writeFile(`${dir}/tokenizer.json`, new Uint8Array([...bytes, 0x20]));
    assert.throws(() => changed.encode(TEXTS[0]), /tokenizer\.json: changed since the tokenizer was loaded/);
    await Deno.writeFile(`${dir}/tokenizer.json`, bytes);
    assert.deepEqual(counter.encode(TEXTS[0]), tokenizer.encode(TEXTS[0], { add_special_tokens: false }).ids);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
