/**
 * The parts that made the model-based engines quadratic in messages, now linear, give the same results as
 * before: the reference summary's line-by-line count equals the whole-text count, BM25 with a long query scores
 * as term-by-term over the query, and the bounded caches drop their oldest entry first.
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../src/models/messages.ts";
import { BM25_B, BM25_K1, bm25Scores } from "../src/models/reference/bm25.ts";
import { contentWords } from "../src/models/reference/text.ts";
import { extractiveSummary } from "../src/models/reference/summary.ts";
import { FifoMap } from "../src/core/fifo_map.ts";
import { TextCountCache } from "../src/tokens/text_cache.ts";
import type { TokenCounter } from "../src/tokens/types.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();

/** The same counter without the line-break property: every count is of the whole text. */
const wholeTexts: TokenCounter = {
  name: counter.name,
  hash: counter.hash,
  countMessages: (messages) => counter.countMessages(messages),
  countText: (text) => counter.countText(text),
};

Deno.test("the Qwen3 counter adds up at a line break before a non-whitespace character", () => {
  assert.equal(counter.additiveAtLineBreaks, true);
  const texts = ["Hello world.", "  indented", "<|im_start|>user", "ümlaut ✓ 数字 42\r", "a\n\nb", "x"];
  for (const a of texts) {
    for (const b of texts.filter((text) => /^\P{White_Space}/u.test(text))) {
      assert.equal(
        counter.countText(`${a}\n${b}`),
        counter.countText(`${a}\n`) + counter.countText(b),
        `${a}|${b}`,
      );
    }
  }
});

Deno.test("the reference summary of many short turns is the one whole-text counting picks", () => {
  const turns: ChatMessage[] = [{ role: "system", content: "You are a helpful agent." }];
  for (let i = 0; i < 600; i++) {
    turns.push({
      role: i % 2 === 0 ? "user" : "assistant",
      content: i % 7 === 3
        ? `Fact ${i}: the code of depot ${i} is K${i * 13}. Ünïcode ✓ 数字.`
        : `short turn ${i}`,
    });
  }
  const request: ChatMessage[] = [
    { role: "user", content: turns.map((m) => `[${m.role}]\n${m.content}`).join("\n\n") },
    { role: "user", content: "Write a summary of the conversation above." },
  ];
  for (const maxTokens of [40, 400, 4000]) {
    const linear = extractiveSummary(request, counter, maxTokens);
    assert.equal(linear, extractiveSummary(request, wholeTexts, maxTokens), `maxTokens ${maxTokens}`);
    assert.ok(counter.countText(linear) <= maxTokens);
  }
});

Deno.test("BM25 with a long query scores every document as summing over the whole query does", () => {
  const documents = Array.from(
    { length: 300 },
    (_, i) => `depot ${i} keeps crate ${i % 17} near river ${i % 5}`,
  );
  const query = documents.join(" ") + " crate river unrelated";
  const docs = documents.map(contentWords);
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length;
  const df = new Map<string, number>();
  for (const doc of docs) for (const word of new Set(doc)) df.set(word, (df.get(word) ?? 0) + 1);
  const expected = docs.map((doc) => {
    let score = 0;
    for (const term of new Set(contentWords(query))) {
      const tf = doc.filter((word) => word === term).length;
      if (tf === 0) continue;
      const n = df.get(term)!;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += idf * (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * doc.length / average));
    }
    return score;
  });
  assert.deepEqual(bm25Scores(query, documents), expected);
});

Deno.test("bounded caches drop their oldest entry first, updates keep their place", () => {
  const fifo = new FifoMap<string, number>(3);
  for (const key of ["a", "b", "c"]) fifo.set(key, 1);
  fifo.set("a", 2);
  fifo.set("d", 1);
  assert.deepEqual(["a", "b", "c", "d"].map((key) => fifo.get(key)), [undefined, 1, 1, 1]);
  for (let i = 0; i < 5000; i++) fifo.set(`k${i}`, i);
  assert.equal(fifo.size, 3);
  assert.deepEqual([fifo.get("k4997"), fifo.get("k4999"), fifo.has("k4996")], [4997, 4999, false]);
  const cache = new TextCountCache(2, 100);
  cache.set("one", 1);
  cache.set("two", 2);
  cache.set("three", 3);
  assert.deepEqual([cache.get("one"), cache.get("two"), cache.get("three")], [undefined, 2, 3]);
  for (let i = 0; i < 5000; i++) cache.set(`t${i}`, i);
  assert.deepEqual([cache.size, cache.get("t4999"), cache.get("t4997")], [2, 4999, undefined]);
});
