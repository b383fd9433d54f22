/**
 * The native render of Qwen3's chat template (`src/tokens/template.ts`) gives the interpreter's text for
 * every plain input, over thousands of generated conversations; other input goes to the interpreter; only the
 * shipped template is rendered natively.
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../src/models/messages.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { ChatTemplate, templateView } from "../src/tokens/template.ts";
import { renderQwen3 } from "../src/tokens/template.ts";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { Template } from "@huggingface/jinja";

async function qwen3Template(): Promise<ChatTemplate> {
  const config = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer_config.json`));
  return new ChatTemplate(config.chat_template, {}, "qwen3");
}

const CONTENTS = [
  "",
  "hi",
  "\n",
  " two words \t",
  "\n\nleading and trailing\n\n",
  "<think>",
  "</think>",
  "<think>\nreasoning\n</think>\n\nanswer",
  "<think>\n\n</think>\n\n",
  "before<think> r </think> after",
  "a</think>b</think>c",
  "  <think>x</think>",
  "<tool_response>\nresult\n</tool_response>",
  "<tool_response>",
  "x</tool_response>",
  "é中😀 \u00a0nbsp",
  "line one\nline two\n",
];

const ROLES = ["system", "user", "assistant", "tool"] as const;

function conversations(count: number, seed: number): ChatMessage[][] {
  let state = seed;
  const pick = <T>(items: readonly T[]): T =>
    items[(state = (Math.imul(state, 1103515245) + 12345) >>> 0) % items.length];
  const lists: ChatMessage[][] = [];
  for (let i = 0; i < count; i++) {
    const messages: ChatMessage[] = [];
    for (let m = pick([1, 1, 2, 3, 4, 5, 6]); m > 0; m--) {
      const role = pick(ROLES);
      const message: ChatMessage = { role, content: pick([...CONTENTS, null]) };
      if (role === "assistant" && pick([0, 1]) === 0) {
        message.tool_calls = Array.from({ length: pick([0, 1, 2, 3]) }, (_, k) => ({
          id: `call_${k}`,
          type: "function" as const,
          function: {
            name: pick(["read_file", "search", ""]),
            arguments: pick(['{"path": "a.txt"}', "{}", "", "not json"]),
          },
        }));
      }
      if (role === "tool") message.tool_call_id = "call_0";
      messages.push(message);
    }
    lists.push(messages);
  }
  return lists;
}

Deno.test("the native Qwen3 render equals the interpreter's over 6,000 generated conversations", async () => {
  const template = await qwen3Template();
  assert.equal(template.native, true);
  let native = 0;
  for (const messages of conversations(3000, 2026)) {
    for (const addGenerationPrompt of [true, false]) {
      const expected = template.renderInterpreted(messages, undefined, { addGenerationPrompt });
      const text = renderQwen3(templateView(messages), addGenerationPrompt);
      assert.ok(text !== null);
      assert.equal(text, expected, JSON.stringify(messages));
      assert.equal(template.render(messages, undefined, { addGenerationPrompt }), expected);
      native++;
    }
  }
  assert.equal(native, 6000);
});

Deno.test("input outside the plain case is rendered by the interpreter: tools, parsed arguments, no messages", async () => {
  const template = await qwen3Template();
  const call = { id: "c", type: "function" as const, function: { name: "f", arguments: '{"a": 1}' } };
  const messages: ChatMessage[] = [{ role: "user", content: "q" }, {
    role: "assistant",
    content: null,
    tool_calls: [call],
  }];
  const parsed = templateView(messages, { parseToolArguments: true });
  assert.equal(renderQwen3(parsed, true), null, "an argument that is an object");
  assert.equal(
    template.render(messages, undefined, { parseToolArguments: true }),
    template.renderInterpreted(messages, undefined, { parseToolArguments: true }),
  );
  const tools = [{ type: "function" as const, function: { name: "f", parameters: { type: "object" } } }];
  assert.equal(template.render(messages, tools), template.renderInterpreted(messages, tools));
  assert.ok(template.render(messages, tools).includes("<tools>"));
  assert.equal(renderQwen3([], true), null);
  assert.equal(renderQwen3([undefined, null] as unknown as Record<string, unknown>[], true), null);
  const odd = [{ role: "user", content: 5 }] as unknown as Record<string, unknown>[];
  assert.equal(renderQwen3(odd, true), null);
  assert.equal(renderQwen3([{ role: "assistant", content: "x", reasoning_content: "r" }], true), null);
});

Deno.test("only the shipped Qwen3 template is rendered natively", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer_config.json`));
  const edited = new ChatTemplate(`${config.chat_template} `, {}, "edited");
  assert.equal(edited.native, false);
  const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
  assert.equal(edited.render(messages), `${(await qwen3Template()).renderInterpreted(messages)} `);
  const counter = await loadTokenCounter();
  const template = await qwen3Template();
  assert.equal(counter.countMessages(messages), counter.countText(template.renderInterpreted(messages)));
});

Deno.test("the shipped template, compiled only at its first interpreted render, parses; another text is compiled at once", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${DEFAULT_TOKENIZER_DIR}/tokenizer_config.json`));
  // What the deferred compile relies on: the text with the shipped SHA-256 parses.
  new Template(config.chat_template);
  const template = new ChatTemplate(config.chat_template, {}, "shipped");
  assert.equal(template.native, true);
  const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
  assert.equal(template.renderInterpreted(messages), template.render(messages));
  // The shipped text with a broken tag after it: not native, so it is compiled (and refused) when constructed.
  const broken = `${config.chat_template}{% if %}`;
  assert.throws(() => new ChatTemplate(broken, {}, "broken"), /broken: chat_template does not parse/);
});
