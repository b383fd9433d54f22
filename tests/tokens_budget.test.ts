/** Budget helpers: evidence space, fitting whole units in order and cutting text, all by exact counts. */
import assert from "node:assert/strict";
import type { ChatMessage, ToolDefinition } from "../src/models/messages.ts";
import {
  countPrompt,
  cutPoints,
  DEFAULT_RESERVE,
  evidenceSpace,
  fitsWithin,
  fitUnitsInOrder,
  longestFittingPrefix,
} from "../src/tokens/budget.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import type { TokenCounter } from "../src/tokens/types.ts";

const counter = await loadTokenCounter();

/** A real counter that also counts how many prompts it was asked to count. */
class TallyingCounter implements TokenCounter {
  calls = 0;
  constructor(readonly inner: TokenCounter) {}
  get name() {
    return this.inner.name;
  }
  get hash() {
    return this.inner.hash;
  }
  countMessages(messages: ChatMessage[], tools?: ToolDefinition[]): number {
    this.calls++;
    return this.inner.countMessages(messages, tools);
  }
  countText(text: string): number {
    return this.inner.countText(text);
  }
}

const names = ["Ada Lovelace", "Émile Zola", "Zhang Yimou", "Chinua Achebe", "Marie Curie"];
const paragraphs = Array.from(
  { length: 40 },
  (_, i) =>
    `Document ${i + 1}. ${names[i % names.length]} was born in ${1800 + i * 3}; ` +
    `the village of Saint-${String.fromCharCode(65 + (i % 26))} had ${(i * 137) % 1000} residents. ` +
    "The railway (opened 1899) closed — later, a museum opened!",
);

const build = (chosen: string[]): ChatMessage[] => [
  { role: "system", content: "Answer from the documents only." },
  { role: "user", content: `${chosen.join("\n\n")}\n\nQuestion: who was born first?` },
];

Deno.test("evidence space is the ceiling less the reserve and the empty prompt's exact tokens", () => {
  const buildFromText = (evidence: string) => build(evidence === "" ? [] : [evidence]);
  const empty = counter.countMessages(buildFromText(""));
  assert.equal(DEFAULT_RESERVE, 64);
  assert.equal(evidenceSpace(counter, buildFromText, 3600), 3600 - 64 - empty);
  assert.equal(evidenceSpace(counter, buildFromText, 3600, 0), 3600 - empty);
});

Deno.test("fitting units in order keeps the longest prefix whose whole prompt fits", () => {
  const limit = 700;
  const fit = fitUnitsInOrder(counter, paragraphs, build, limit);
  assert.ok(fit.chosen.length > 0 && fit.chosen.length < paragraphs.length);
  assert.deepEqual(fit.chosen, paragraphs.slice(0, fit.chosen.length));
  assert.equal(fit.tokens, counter.countMessages(build(fit.chosen)));
  assert.ok(fit.tokens <= limit);
  assert.ok(counter.countMessages(build(paragraphs.slice(0, fit.chosen.length + 1))) > limit);
  let linear = 0;
  while (
    linear < paragraphs.length && counter.countMessages(build(paragraphs.slice(0, linear + 1))) <= limit
  ) {
    linear++;
  }
  assert.equal(fit.chosen.length, linear, "bisection agrees with a unit-by-unit scan");
});

Deno.test("fitting units needs only logarithmically many exact counts", () => {
  const tally = new TallyingCounter(counter);
  fitUnitsInOrder(tally, paragraphs, build, 900);
  assert.ok(tally.calls <= Math.ceil(Math.log2(paragraphs.length + 1)) + 1, `${tally.calls} counts`);
});

Deno.test("fitting units returns all units when all fit and none when the empty prompt overflows", () => {
  const all = fitUnitsInOrder(counter, paragraphs.slice(0, 3), build, 100_000);
  assert.equal(all.chosen.length, 3);
  const none = fitUnitsInOrder(counter, paragraphs, build, 5);
  assert.deepEqual(none.chosen, []);
  assert.equal(none.tokens, counter.countMessages(build([])));
  assert.ok(none.tokens > 5);
});

Deno.test("prompts with tools are counted with their tool definitions", () => {
  const tools: ToolDefinition[] = [{
    type: "function",
    function: { name: "read_file", description: "Read a file", parameters: { type: "object" } },
  }];
  const messages = build(paragraphs.slice(0, 2));
  const withTools = countPrompt(counter, { messages, tools });
  assert.equal(withTools, counter.countMessages(messages, tools));
  assert.ok(withTools > countPrompt(counter, messages));
  assert.equal(fitsWithin(counter, { messages, tools }, withTools), true);
  assert.equal(fitsWithin(counter, { messages, tools }, withTools - 1), false);
});

Deno.test("longest fitting prefix cuts a text at a sentence boundary", () => {
  const text = paragraphs.slice(0, 12).join(" ");
  const buildSummary = (prefix: string): ChatMessage[] => [{ role: "user", content: `Summary: ${prefix}` }];
  const limit = 150;
  const fit = longestFittingPrefix(counter, text, buildSummary, limit);
  const cuts = cutPoints(text, "sentence");
  const at = cuts.indexOf(fit.chosen.length);
  assert.ok(at > 0, "the prefix ends at a sentence boundary");
  assert.ok(text.startsWith(fit.chosen));
  assert.equal(fit.tokens, counter.countMessages(buildSummary(fit.chosen)));
  assert.ok(fit.tokens <= limit);
  assert.ok(counter.countMessages(buildSummary(text.slice(0, cuts[at + 1]))) > limit);
});

Deno.test("longest fitting prefix by graphemes never splits an emoji", () => {
  const text = "👨‍👩‍👧‍👦".repeat(30);
  const buildText = (prefix: string): ChatMessage[] => [{ role: "user", content: prefix }];
  const limit = counter.countMessages(buildText("")) + 40;
  const fit = longestFittingPrefix(counter, text, buildText, limit, "grapheme");
  assert.equal(fit.chosen.length % "👨‍👩‍👧‍👦".length, 0);
  assert.ok(fit.chosen.length > 0 && fit.tokens <= limit);
});

Deno.test("word cut points fall after words, and every kind includes both ends", () => {
  const text = "Zola, born 1840. Paris!";
  assert.deepEqual(cutPoints(text, "word").map((end) => text.slice(0, end)), [
    "",
    "Zola",
    "Zola, born",
    "Zola, born 1840",
    "Zola, born 1840. Paris",
    text,
  ]);
  assert.deepEqual(cutPoints("", "sentence"), [0]);
  assert.deepEqual(cutPoints(text, "sentence"), [0, 17, text.length]);
});
