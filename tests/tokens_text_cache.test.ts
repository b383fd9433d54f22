/**
 * The text-keyed count caches: bounded in entries and characters, oldest dropped first, keys detached from
 * the strings they were cut from, and never one text's count for another (texts that differ by one character,
 * a prefix, a piece at the text-key limit and one past it).
 */
import assert from "node:assert/strict";
import { Tokenizer } from "@huggingface/tokenizers";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { TEXT_KEY_LIMIT } from "../src/tokens/counter.ts";
import { detachedCopy, TextCountCache } from "../src/tokens/text_cache.ts";

async function library(): Promise<Tokenizer> {
  const json = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer.json`));
  const config = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer_config.json`));
  return new Tokenizer(json, config);
}

Deno.test("a text cache is bounded in entries and in characters, dropping the oldest first", () => {
  const byEntries = new TextCountCache(3, 1000);
  for (const [i, text] of ["a", "b", "c", "d"].entries()) byEntries.set(text, i);
  assert.equal(byEntries.size, 3);
  assert.equal(byEntries.get("a"), undefined, "the oldest entry is dropped");
  assert.deepEqual(["b", "c", "d"].map((t) => byEntries.get(t)), [1, 2, 3]);

  const byChars = new TextCountCache(100, 10);
  byChars.set("aaaa", 1);
  byChars.set("bbbb", 2);
  assert.equal(byChars.chars, 8);
  byChars.set("ccc", 3); // 11 > 10: "aaaa" goes
  assert.equal(byChars.get("aaaa"), undefined);
  assert.equal(byChars.get("bbbb"), 2);
  assert.equal(byChars.get("ccc"), 3);
  assert.equal(byChars.chars, 7);
  byChars.set("x".repeat(11), 4); // longer than the whole bound: not cached, nothing dropped
  assert.equal(byChars.get("x".repeat(11)), undefined);
  assert.equal(byChars.size, 2);
  byChars.set("bbbb", 5); // a known key is updated in place
  assert.equal(byChars.get("bbbb"), 5);
  assert.equal(byChars.chars, 7);
  byChars.set("dddddddddd", 6); // exactly the bound: everything else goes
  assert.equal(byChars.size, 1);
  assert.equal(byChars.chars, 10);
});

Deno.test("a text cache never answers for another text: prefixes, one character apart, case, empty", () => {
  const texts = ["", " ", "a", "a ", " a", "A", "ab", "abc", "abd", "é", "e\u0301", "\u{1F600}", "\ud83d"];
  const cache = new TextCountCache(100, 1000);
  texts.forEach((text, i) => cache.set(text, i));
  texts.forEach((text, i) => assert.equal(cache.get(text), i, JSON.stringify(text)));
  assert.equal(cache.get("abe"), undefined);
});

Deno.test("a cached key is a copy with the same text, found by a slice of another string", () => {
  const prompt = `${"x".repeat(100_000)}\nthe line that is cached\n${"y".repeat(100_000)}`;
  const line = prompt.slice(100_001, 100_024);
  assert.equal(detachedCopy(line), line);
  assert.equal(detachedCopy(""), "");
  const cache = new TextCountCache(10, 1000);
  cache.set(line, 7);
  assert.equal(cache.chars, line.length, "only the line's characters are accounted");
  assert.equal(cache.get("the line that is cached"), 7);
  assert.equal(cache.get(prompt.slice(100_001, 100_024)), 7);
});

Deno.test("pieces at the text-key limit, one past it, and near-identical pieces each get their own count", async () => {
  const counter = await loadTokenCounter();
  const tokenizer = await library();
  const word = "Arthur's Magazine (1844–1929) was an American literary periodical. ";
  const long = word.repeat(Math.ceil((TEXT_KEY_LIMIT + 2) / word.length));
  const texts: string[] = [];
  for (const length of [TEXT_KEY_LIMIT - 1, TEXT_KEY_LIMIT, TEXT_KEY_LIMIT + 1, TEXT_KEY_LIMIT + 2]) {
    const piece = long.slice(0, length);
    // The same piece, one character changed at its end or start, and as one line of a longer text.
    texts.push(piece, `${piece.slice(0, -1)}!`, `!${piece.slice(1)}`, `${piece}\nnext line\n`);
  }
  for (const round of [1, 2]) { // the second round is answered from the caches
    for (const text of texts) {
      const whole = tokenizer.encode(text, { add_special_tokens: false }).ids.length;
      assert.equal(counter.countText(text), whole, `round ${round}: length ${text.length}`);
    }
  }
});
