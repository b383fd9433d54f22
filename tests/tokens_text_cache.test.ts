/**
 * The text-keyed count caches: bounded in entries and characters, oldest dropped first (the short-text table:
 * emptied when full), keys detached from the strings they were cut from, and never one text's count for
 * another (texts that differ by one character, a prefix, texts whose hashes are equal, a piece at the text-key
 * limit and one past it).
 */
import assert from "node:assert/strict";
import { Tokenizer } from "@huggingface/tokenizers";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { TEXT_KEY_LIMIT } from "../src/tokens/counter.ts";
import { detachedCopy, ShortTextCounts, TextCountCache } from "../src/tokens/text_cache.ts";

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

Deno.test("the short-text table answers as a map of the same texts: random texts, empties when full", () => {
  const table = new ShortTextCounts(500, 4000, 16);
  const map = new Map<string, number>();
  let state = 99;
  const next = (n: number) => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n;
  const alphabet = ["a", "b", " ", "é", "\u{1F600}", "\ud800", "1"];
  for (let step = 0; step < 20_000; step++) {
    let text = "";
    for (let i = next(8); i > 0; i--) text += alphabet[next(alphabet.length)];
    const known = table.get(text);
    if (known >= 0) assert.equal(known, map.get(text), JSON.stringify(text));
    else {
      const count = next(1000);
      const before = table.resets;
      table.set(text, count);
      if (table.resets > before) map.clear();
      map.set(text, count);
    }
    assert.ok(table.size <= 500);
  }
  assert.ok(table.resets > 0, "the table filled and was emptied");
  for (const [text, count] of map) assert.equal(table.get(text), count);
  assert.equal(table.get("x".repeat(17)), -1);
  table.set("x".repeat(17), 3); // longer than the table's texts: not cached
  assert.equal(table.get("x".repeat(17)), -1);
});

Deno.test("the short-text table tells apart texts whose hashes are equal", () => {
  const hash = (text: string) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return h;
  };
  const seen = new Map<number, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; pair === undefined; i++) {
    const text = `w${String(i).padStart(7, "0")}`; // of one length, so only the characters tell them apart
    const other = seen.get(hash(text));
    if (other !== undefined) pair = [other, text];
    seen.set(hash(text), text);
  }
  const table = new ShortTextCounts(10, 100, 16);
  table.set(pair[0], 1);
  assert.equal(table.get(pair[1]), -1, `${pair[0]} and ${pair[1]} share a hash, not a count`);
  table.set(pair[1], 2);
  assert.deepEqual([table.get(pair[0]), table.get(pair[1])], [1, 2]);
  table.set(pair[0], 5); // a known text is updated in place
  assert.deepEqual([table.get(pair[0]), table.get(pair[1]), table.size], [5, 2, 2]);
  table.set("", 4); // the empty text, whose hash is the offset basis, is found too
  table.set("", 4);
  assert.deepEqual([table.get(""), table.size], [4, 3]);
});
