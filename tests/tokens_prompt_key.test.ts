/**
 * The prompt cache's key: the plain text of a view is the same for two message lists exactly when their
 * template views are (so a count is never reused for a prompt that renders differently), the cases it does not
 * cover fall back to the JSON text, and counts served from the cache equal new renders.
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../src/models/messages.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { plainPromptText, promptKey } from "../src/tokens/counter.ts";
import { templateView } from "../src/tokens/template.ts";

const viewText = (messages: ChatMessage[], generationPrompt: boolean) =>
  JSON.stringify([generationPrompt, templateView(messages)]);

Deno.test("message lists that a plain concatenation would confuse get different plain texts", () => {
  const pairs: [ChatMessage[], ChatMessage[]][] = [
    [[{ role: "user", content: "ab" }, { role: "user", content: "c" }], [{ role: "user", content: "a" }, {
      role: "user",
      content: "bc",
    }]],
    [[{ role: "user", content: "1:a" }], [{ role: "user", content: "1" }, { role: "user", content: "a" }]],
    [[{ role: "tool", content: "x", tool_call_id: "" }], [{ role: "tool", content: "x" }]],
    [[{ role: "user", content: "x", name: "" }], [{ role: "user", content: "x" }]],
    [[{ role: "user", content: "x", name: "n" }], [{ role: "user", content: "x", tool_call_id: "n" }]],
    [[{ role: "assistant", content: null, tool_calls: [] }], [{ role: "assistant", content: null }]],
    [
      [{ role: "assistant", content: "", tool_calls: [call("a", "{}"), call("b", "{}")] }],
      [{ role: "assistant", content: "", tool_calls: [call("a", "{}")] }, {
        role: "assistant",
        content: "",
        tool_calls: [call("b", "{}")],
      }],
    ],
    [[{ role: "user", content: "-" }], [{ role: "user", content: "" }]],
  ];
  for (const [a, b] of pairs) {
    assert.notEqual(viewText(a, true), viewText(b, true), "the views differ");
    assert.notEqual(plainPromptText(a, true), plainPromptText(b, true), JSON.stringify([a, b]));
  }
  const one: ChatMessage[] = [{ role: "user", content: "x" }];
  assert.notEqual(plainPromptText(one, true), plainPromptText(one, false));
  // null and "" content are the same view (templateView writes null as ""), so the same text.
  assert.equal(
    plainPromptText([{ role: "assistant", content: null }], true),
    plainPromptText([{ role: "assistant", content: "" }], true),
  );
});

function call(name: string, args: string) {
  return { id: `id-${name}`, type: "function" as const, function: { name, arguments: args } };
}

Deno.test("generated message lists share a plain text exactly when their template views are the same", () => {
  let state = 12345;
  const pick = <T>(items: readonly T[]): T =>
    items[(state = (Math.imul(state, 1103515245) + 12345) >>> 0) % items.length];
  const strings = ["", "a", "b", "ab", "1:", ":", "-", "0:", "1:a", "a1", "é", "[", "|"];
  const roles = ["user", "assistant", "tool", "system"] as const;
  const lists: ChatMessage[][] = [];
  for (let i = 0; i < 4000; i++) {
    const messages: ChatMessage[] = [];
    for (let m = pick([0, 1, 2, 3]); m > 0; m--) {
      const message: ChatMessage = { role: pick(roles), content: pick([...strings, null]) };
      if (pick([0, 1, 2]) === 0) {
        message.tool_calls = Array.from({ length: pick([0, 1, 2]) }, () => ({
          id: pick(strings),
          type: "function" as const,
          function: { name: pick(strings), arguments: pick(strings) },
        }));
      }
      if (pick([0, 1, 2]) === 0) message.tool_call_id = pick(strings);
      if (pick([0, 1, 2]) === 0) message.name = pick(strings);
      messages.push(message);
    }
    lists.push(messages);
  }
  const byText = new Map<string, string>();
  const byView = new Map<string, string>();
  for (const messages of lists) {
    for (const generationPrompt of [true, false]) {
      const text = plainPromptText(messages, generationPrompt);
      assert.ok(text !== null);
      const view = viewText(messages, generationPrompt);
      const seenView = byText.get(text);
      if (seenView !== undefined) assert.equal(seenView, view, `one text, two views: ${text}`);
      const seenText = byView.get(view);
      if (seenText !== undefined) assert.equal(seenText, text, `one view, two texts: ${view}`);
      byText.set(text, view);
      byView.set(view, text);
    }
  }
  assert.ok(byText.size > 1000, `${byText.size} distinct prompts`);
});

Deno.test("a field that is not a string, tool definitions and parsed arguments are keyed by the JSON text", () => {
  const odd = [{ role: "user", content: ["parts"] }] as unknown as ChatMessage[];
  assert.equal(plainPromptText(odd, true), null);
  // A message or call that is not an object, or a hole, is not the plain case either.
  const sparse = [{ role: "user", content: "a" }, , {
    role: "user",
    content: "b",
  }] as unknown as ChatMessage[];
  assert.equal(plainPromptText(sparse, true), null);
  assert.equal(plainPromptText([null] as unknown as ChatMessage[], true), null);
  const badCall = [{ role: "assistant", content: null, tool_calls: [null] }] as unknown as ChatMessage[];
  assert.equal(plainPromptText(badCall, true), null);
  const messages: ChatMessage[] = [{ role: "assistant", content: null, tool_calls: [call("f", '{"a":1}')] }];
  const plain = promptKey(messages, undefined, true, {});
  const parsed = promptKey(messages, undefined, true, { parseToolArguments: true });
  const objects = promptKey(messages, undefined, true, { objectArgumentCalls: new Set(["0:0"]) });
  const withTools = promptKey(messages, [{ type: "function", function: { name: "f" } }], true, {});
  for (const key of [plain, parsed, objects, withTools]) assert.match(key ?? "", /^[0-9a-f]{64}$/);
  assert.equal(new Set([plain, parsed, withTools]).size, 3);
  // An object argument and a parsed one are the same view: the same key.
  assert.equal(parsed, objects);
});

Deno.test("counts served under plain keys equal new renders: tool calls, names, near-identical prompts", async () => {
  const counter = await loadTokenCounter();
  const id = crypto.randomUUID();
  const prompts: ChatMessage[][] = [
    [{ role: "user", content: `${id} ab` }, { role: "user", content: "c" }],
    [{ role: "user", content: `${id} a` }, { role: "user", content: "bc" }],
    [{ role: "user", content: id }, {
      role: "assistant",
      content: null,
      tool_calls: [call("read", '{"p":1}')],
    }, {
      role: "tool",
      content: "result",
      tool_call_id: "id-read",
    }],
    [{ role: "user", content: id }, {
      role: "assistant",
      content: null,
      tool_calls: [call("read", '{"p":2}')],
    }, {
      role: "tool",
      content: "result",
      tool_call_id: "id-read",
    }],
  ];
  for (const round of [1, 2]) { // the second round is served from the cache
    for (const messages of prompts) {
      assert.equal(
        counter.countMessages(messages),
        counter.countText(counter.render(messages)),
        `round ${round}`,
      );
    }
  }
});
