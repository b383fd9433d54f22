/** The `tokens` command: counts of messages files, the per-message breakdown, and its usage errors. */
import assert from "node:assert/strict";
import { assetPath } from "../src/assets.ts";
import { tokensCommand } from "../src/cli/tokens.ts";
import { UsageError } from "../src/errors.ts";
import type { ChatMessage, ToolDefinition } from "../src/models/messages.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";

/** Runs the command in this process and returns its exit code and what it printed. */
async function run(argv: string[]): Promise<{ code: number; stdout: string }> {
  const printed: string[] = [];
  const original = console.log;
  console.log = (...parts: unknown[]) => printed.push(parts.join(" "));
  try {
    const code = await tokensCommand(argv);
    return { code, stdout: printed.join("\n") };
  } finally {
    console.log = original;
  }
}

async function writeJson(value: unknown): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "tokens_cli_", suffix: ".json" });
  await Deno.writeTextFile(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

const messages: ChatMessage[] = [
  { role: "system", content: "Answer from the files." },
  { role: "user", content: "Who founded Arthur's Magazine? 北京 🚀" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "c1",
      type: "function",
      function: { name: "read_file", arguments: '{"path": "a.txt"}' },
    }],
  },
  { role: "tool", tool_call_id: "c1", content: "Arthur's Magazine (1844–1929) was founded by T. S. Arthur." },
];
const tools: ToolDefinition[] = [{
  type: "function",
  function: { name: "read_file", description: "Read a file", parameters: { type: "object" } },
}];

async function assertUsageError(argv: string[], pattern: RegExp) {
  await assert.rejects(run(argv), (error: Error) => {
    assert.ok(error instanceof UsageError, `${error.name}: ${error.message}`);
    assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("tokens prints the exact count of a list of messages", async () => {
  const counter = await loadTokenCounter();
  const result = await run([await writeJson(messages)]);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, String(counter.countMessages(messages)));
});

Deno.test("tokens --json breaks the count down per message and adds up to the total", async () => {
  const counter = await loadTokenCounter();
  const result = await run(["--json", await writeJson({ model: "qwen3.8-max", messages, tools })]);
  const report = JSON.parse(result.stdout);
  assert.equal(report.tokenizer, "qwen3");
  assert.equal(report.hash, counter.hash);
  assert.equal(report.total, counter.countMessages(messages, tools));
  assert.deepEqual(report.messages.map((m: { role: string }) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
  ]);
  const sum = report.messages.reduce((total: number, m: { tokens: number }) => total + m.tokens, 0);
  assert.equal(sum + report.generation_prompt, report.total);
  assert.equal(
    report.messages[0].tokens,
    counter.countText(counter.render(messages.slice(0, 1), tools, false)),
  );
  assert.equal(
    report.generation_prompt,
    report.total - counter.countText(counter.render(messages, tools, false)),
  );
});

Deno.test("tokens --tokenizer counts with another tokenizer directory", async () => {
  const dir = assetPath("tests/fixtures/tokenizers/deepseek_v3");
  const other = await loadTokenCounter(dir);
  const file = await writeJson({ messages: messages.slice(0, 2) });
  const report = JSON.parse((await run(["--tokenizer", dir, "--json", file])).stdout);
  assert.equal(report.tokenizer, "deepseek_v3");
  assert.equal(report.hash, other.hash);
  assert.equal(report.total, other.countMessages(messages.slice(0, 2)));
});

Deno.test("tokens names the file and the message field that is invalid", async () => {
  const badRole = await writeJson([{ role: "user", content: "hi" }, { role: "robot", content: "x" }]);
  await assertUsageError([badRole], new RegExp(`^${badRole}: messages\\[1\\]\\.role: `));
  const badTool = await writeJson({
    messages,
    tools: [{ type: "function", function: { description: "x" } }],
  });
  await assertUsageError([badTool], /tools\[0\]\.function\.name: /);
  const badCall = await writeJson([{
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c", type: "function" }],
  }]);
  await assertUsageError([badCall], /messages\[0\]\.tool_calls\[0\]\.function: /);
});

Deno.test("tokens rejects files that are not JSON, not messages, empty or missing", async () => {
  await assertUsageError([await writeJson("[{")], /not valid JSON/);
  await assertUsageError([await writeJson("42")], /expected a list of messages or an object/);
  await assertUsageError([await writeJson([])], /messages: the list is empty/);
  await assertUsageError([await writeJson({ tools })], /messages: /);
  await assertUsageError(["/nonexistent/messages.json"], /\/nonexistent\/messages\.json: not found/);
});

Deno.test("tokens rejects a missing or extra FILE, unknown options and a bad tokenizer directory", async () => {
  await assertUsageError([], /expected exactly one FILE, got 0/);
  const file = await writeJson(messages);
  await assertUsageError([file, file], /expected exactly one FILE, got 2/);
  await assertUsageError(["--bogus", file], /tokens: .*bogus/);
  await assertUsageError(
    ["--tokenizer", "/nonexistent-tokenizer", file],
    /--tokenizer \/nonexistent-tokenizer: not found/,
  );
});

Deno.test("tokens --help prints the usage and the breakdown definition", async () => {
  const result = await run(["--help"]);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^Usage: \.\/compaction-bench tokens \[--tokenizer PATH\] \[--json\] FILE/);
  assert.match(result.stdout, /count\(messages 0\.\.i\) - count\(messages 0\.\.i-1\)/);
});
