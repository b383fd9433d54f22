/** Loading a tokenizer directory: validation errors, the identity hash, memoization and the count cache. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { UsageError } from "../src/errors.ts";
import type { ChatMessage } from "../src/models/messages.ts";
import { loadTokenCounter, tokenizerHash } from "../src/tokens/load.ts";

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** A character-level BPE tokenizer (one token per letter, space or punctuation) plus an `<eos>` token. */
function tinyTokenizerJson(): string {
  const vocab = Object.fromEntries([..."abcdefghijklmnopqrstuvwxyz .:,\n"].map((c, i) => [c, i]));
  return JSON.stringify({
    version: "1.0",
    added_tokens: [{ id: 100, content: "<eos>", special: true, normalized: false }],
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: null,
    model: { type: "BPE", vocab, merges: [], unk_token: null },
  });
}

async function tokenizerDir(config: string, tokenizerJson = "{}"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tokens_load_" });
  await Deno.writeTextFile(`${dir}/tokenizer_config.json`, config);
  await Deno.writeTextFile(`${dir}/tokenizer.json`, tokenizerJson);
  return dir;
}

Deno.test("loader defaults to the shipped Qwen3 tokenizer and names it by its directory", async () => {
  const counter = await loadTokenCounter();
  assert.equal(counter.name, "qwen3");
  assert.equal(counter.countMessages([{ role: "user", content: "hi" }]), 13);
});

Deno.test("tokenizer hash is the SHA-256 of the sha256sum listing of both files", async () => {
  const counter = await loadTokenCounter();
  const json = await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer.json`);
  const config = await Deno.readFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer_config.json`);
  const listing = `${sha256(json)}  tokenizer.json\n${sha256(config)}  tokenizer_config.json\n`;
  assert.equal(counter.hash, sha256(listing));
  assert.equal(tokenizerHash(json, config), counter.hash);
  assert.notEqual(tokenizerHash(json, new TextEncoder().encode("{}")), counter.hash);
});

Deno.test("loader builds each directory once per process", async () => {
  await loadTokenCounter();
  const [a, b] = await Promise.all([loadTokenCounter(), loadTokenCounter(`${DEFAULT_TOKENIZER_DIR}/.`)]);
  // One built tokenizer per directory: both counters share its count cache (its load time is in bench/tokens.ts).
  const before = b.cachedCounts;
  a.countText(`a text counted once by this test only ${crypto.randomUUID()}`);
  assert.ok(b.cachedCounts > before, "a second load must not rebuild the tokenizer");
  assert.equal(a.hash, b.hash);
});

Deno.test("repeated counts come from the cache", async () => {
  const counter = await loadTokenCounter();
  const text = "Arthur's Magazine (1844–1929) was an American literary periodical. ".repeat(3000);
  const before = counter.cachedCounts;
  const first = counter.countText(text);
  const cached = counter.cachedCounts;
  assert.ok(cached > before, "a first count is cached");
  assert.equal(counter.countText(text), first);
  assert.equal(
    counter.cachedCounts,
    cached,
    "a repeated count must be served from the cache, not counted again",
  );
  assert.equal(counter.encode(text).length, first);
});

Deno.test("loader names the missing file of a tokenizer directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tokens_load_" });
  await assert.rejects(loadTokenCounter(dir), (error: Error) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /tokenizer(_config)?\.json: not found/);
    return true;
  });
});

Deno.test("loader rejects a config without chat_template, naming the file and field", async () => {
  const dir = await tokenizerDir(JSON.stringify({ eos_token: "</s>" }));
  await assert.rejects(loadTokenCounter(dir), (error: Error) => {
    assert.ok(error instanceof UsageError);
    assert.ok(error.message.includes(`${dir}/tokenizer_config.json`), error.message);
    assert.match(error.message, /chat_template: no chat_template/);
    return true;
  });
});

Deno.test("loader rejects a config that is not JSON and a bad special token, naming the field", async () => {
  const notJson = await tokenizerDir("{ chat_template: ");
  await assert.rejects(loadTokenCounter(notJson), /tokenizer_config\.json: not valid UTF-8 JSON/);
  const badToken = await tokenizerDir(JSON.stringify({ chat_template: "{{ bos_token }}", bos_token: 7 }));
  await assert.rejects(loadTokenCounter(badToken), /tokenizer_config\.json: bos_token: /);
});

Deno.test("loader rejects a tokenizer.json without a model", async () => {
  const dir = await tokenizerDir(JSON.stringify({ chat_template: "{{ messages[0].content }}" }), "{}");
  await assert.rejects(loadTokenCounter(dir), /tokenizer\.json: model: /);
});

Deno.test("loader rejects a chat template that does not parse", async () => {
  const dir = await tokenizerDir(
    JSON.stringify({ chat_template: "{% for m in messages %}{{ m" }),
    tinyTokenizerJson(),
  );
  await assert.rejects(loadTokenCounter(dir), /tokenizer_config\.json: chat_template does not parse/);
});

const toolCall: ChatMessage[] = [
  { role: "user", content: "read it" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "c1",
      type: "function",
      function: { name: "read_file", arguments: '{"path":"a.txt"}' },
    }],
  },
  { role: "tool", tool_call_id: "c1", content: "text" },
];

Deno.test("tool-call arguments render as given by default and as JSON objects when parsed", async () => {
  const asGiven = (await loadTokenCounter()).render(toolCall);
  assert.ok(asGiven.includes('"arguments": {"path":"a.txt"}}'), asGiven);
  const parsed = (await loadTokenCounter(undefined, { parseToolArguments: true })).render(toolCall);
  assert.ok(parsed.includes('"arguments": {"path": "a.txt"}}'), parsed);
});

Deno.test("a null assistant content renders as empty text", async () => {
  const counter = await loadTokenCounter();
  const withNull = counter.render(toolCall);
  const withEmpty = counter.render(toolCall.map((m) => m.content === null ? { ...m, content: "" } : m));
  assert.equal(withNull, withEmpty);
  assert.ok(withNull.endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
});

Deno.test("a template that refuses the messages fails naming the tokenizer config", async () => {
  const template = "{% for m in messages %}{% if m.role != 'user' %}{{ raise_exception('users only') }}" +
    "{% endif %}{{ m.content + eos_token }}{% endfor %}";
  const dir = await tokenizerDir(
    JSON.stringify({ chat_template: template, eos_token: "<eos>" }),
    tinyTokenizerJson(),
  );
  const counter = await loadTokenCounter(dir);
  assert.equal(counter.render([{ role: "user", content: "ab c" }]), "ab c<eos>");
  assert.equal(counter.countMessages([{ role: "user", content: "ab c" }]), 5);
  assert.throws(
    () => counter.countMessages(toolCall),
    /tokenizer_config\.json: chat template failed to render 3 message\(s\): .*users only/,
  );
});

Deno.test("AddedToken-style special tokens reach the template as their content", async () => {
  const config = {
    chat_template: "{{ bos_token }}{{ messages[0].content }}",
    bos_token: { content: "<eos>" },
  };
  const counter = await loadTokenCounter(await tokenizerDir(JSON.stringify(config), tinyTokenizerJson()));
  assert.deepEqual(counter.encode(counter.render([{ role: "user", content: "hi" }])), [100, 7, 8]);
});

/** `toolCall` with the tool call's arguments replaced. */
function withArguments(args: string): ChatMessage[] {
  return toolCall.map((m) =>
    m.tool_calls
      ? { ...m, tool_calls: [{ ...m.tool_calls[0], function: { name: "read_file", arguments: args } }] }
      : m
  );
}

Deno.test("a prompt counted again comes from the prompt cache, with the count a new render gives", async () => {
  const counter = await loadTokenCounter();
  const messages: ChatMessage[] = [{
    role: "user",
    content: `a prompt for this test only ${crypto.randomUUID()}`,
  }];
  const before = counter.cachedPrompts;
  const first = counter.countMessages(messages);
  assert.equal(counter.cachedPrompts, before + 1);
  assert.equal(counter.countMessages(structuredClone(messages)), first);
  assert.equal(counter.cachedPrompts, before + 1, "the same prompt again is not rendered again");
  assert.equal(first, counter.countText(counter.render(messages)));
  // Without the generation prompt it is another prompt.
  const bare = counter.countMessagesWithoutGenerationPrompt(messages);
  assert.equal(bare, counter.countText(counter.render(messages, undefined, false)));
  assert.ok(bare < first);
  assert.equal(counter.cachedPrompts, before + 2);
});

Deno.test("prompts the template sees differently never share a count: key order, parsed arguments", async () => {
  const parsing = await loadTokenCounter(undefined, { parseToolArguments: true });
  const asGiven = await loadTokenCounter();
  const id = crypto.randomUUID();
  const ab = withArguments(`{"a":"${id}","bb":2}`);
  const ba = withArguments(`{"bb":2,"a":"${id}"}`);
  for (const counter of [parsing, asGiven]) {
    for (const messages of [ab, ba]) {
      assert.equal(counter.countMessages(messages), counter.countText(counter.render(messages)));
    }
  }
  // The same messages seen parsed and as given render differently: each counter's count is its own render's.
  const spaced = withArguments(`{"a":   "${id}"}`);
  assert.notEqual(parsing.render(spaced), asGiven.render(spaced));
  assert.equal(parsing.countMessages(spaced), parsing.countText(parsing.render(spaced)));
  assert.equal(asGiven.countMessages(spaced), asGiven.countText(asGiven.render(spaced)));
});

Deno.test("values JSON would not tell apart, and a template that reads the clock, are counted without the cache", async () => {
  const parsing = await loadTokenCounter(undefined, { parseToolArguments: true });
  const before = parsing.cachedPrompts;
  for (const args of ['{"x": -0}', '{"x": 1e400}']) { // parsed to -0 and Infinity
    const messages = withArguments(args);
    assert.equal(parsing.countMessages(messages), parsing.countText(parsing.render(messages)));
  }
  assert.equal(parsing.cachedPrompts, before);
  const clock = await tokenizerDir(
    JSON.stringify({
      chat_template: "{{ strftime_now('%Y') }}{% for m in messages %}{{ m.content }}{% endfor %}",
    }),
    tinyTokenizerJson(),
  );
  const timed = await loadTokenCounter(clock);
  const abc: ChatMessage[] = [{ role: "user", content: "abc" }];
  assert.ok(timed.render(abc).endsWith("abc"));
  assert.equal(timed.countMessages(abc), timed.countText(timed.render(abc)));
  assert.equal(timed.cachedPrompts, 0);
});
