/**
 * Tool calls whose `arguments` is a JSON object (the Hugging Face convention) are counted exactly as
 * `transformers` counts them. The expectation is the transformers-generated battery case "tool calls with
 * parsed arguments" (tests/fixtures/tokens/qwen3.json, made by scripts/gen_token_expectations.py), in which
 * transformers rendered both calls' arguments as objects: a file that gives the first call's arguments as an
 * object and the second's as a string already in the `json.dumps` layout must render and count to exactly
 * those bytes and ids. (pip is not reachable here, so no new transformers run was made: the expectation
 * reuses the committed one, and the mixed file follows the template's rule — objects through `tojson`,
 * strings verbatim.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assetPath } from "../src/assets.ts";
import { readMessagesFile } from "../src/cli/tokens.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { runCli } from "./helpers/spawn.ts";

interface Case {
  name: string;
  messages: { role: string; tool_calls?: { function: { arguments: unknown } }[] }[];
  tools?: unknown[];
  rendered: string;
  ids: number[];
}

async function parsedArgumentsCase(): Promise<Case> {
  const raw = JSON.parse(await Deno.readTextFile(assetPath("tests/fixtures/tokens/qwen3.json")));
  return raw.chat.find((c: Case) => c.name === "tool calls with parsed arguments");
}

Deno.test("tokens counts tool calls with object arguments exactly as transformers renders them", async () => {
  const expected = await parsedArgumentsCase();
  const messages = structuredClone(expected.messages);
  const calls = messages[1].tool_calls!;
  calls[0].function.arguments = JSON.parse(calls[0].function.arguments as string);
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "chat.json");
    await Deno.writeTextFile(path, JSON.stringify({ messages, tools: expected.tools }));
    const file = await readMessagesFile(path);
    assert.deepEqual([...file.objectArgumentCalls!], ["1:0"]);
    const counter = await loadTokenCounter(undefined, { objectArgumentCalls: file.objectArgumentCalls });
    assert.equal(counter.render(file.messages, file.tools), expected.rendered);
    assert.deepEqual(counter.encode(counter.render(file.messages, file.tools)), expected.ids);
    const cli = await runCli(["tokens", path]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout.trim(), String(expected.ids.length));

    // The same calls given as strings render the strings verbatim (the compact one differs).
    const strings = join(dir, "strings.json");
    await Deno.writeTextFile(strings, JSON.stringify({ messages: expected.messages, tools: expected.tools }));
    const plain = await readMessagesFile(strings);
    assert.equal(plain.objectArgumentCalls!.size, 0);
    const rendered = (await loadTokenCounter()).render(plain.messages, plain.tools);
    assert.ok(rendered.includes('"arguments": {"path":"docs/doc_1.txt","max_bytes":100}'));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tokens names the field when a tool call's arguments is neither a string nor an object", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "bad.json");
    const call = { id: "c", type: "function", function: { name: "f", arguments: [1, 2] } };
    await Deno.writeTextFile(
      path,
      JSON.stringify([{ role: "assistant", content: null, tool_calls: [call] }]),
    );
    const cli = await runCli(["tokens", path]);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /tool_calls.*arguments/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
