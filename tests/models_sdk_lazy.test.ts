/**
 * The `openai` SDK is imported when a chat client first sends, not when its module loads: a process that
 * calls no provider (a check-only run, a run whose every node is reused) never evaluates its ~330 modules.
 * Checked in a real subprocess whose import map points `openai` at a module that throws when evaluated.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers/spawn.ts";

Deno.test("a chat client loads the openai SDK only when it first sends", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sdk-lazy-" });
  try {
    const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
    await Deno.writeTextFile(join(dir, "sdk_stub.ts"), 'throw new Error("the openai SDK was evaluated");\n');
    config.imports.openai = pathToFileURL(join(dir, "sdk_stub.ts")).href;
    await Deno.writeTextFile(join(dir, "deno.json"), JSON.stringify({ imports: config.imports }));
    const client = pathToFileURL(join(ROOT, "src/models/chat_client.ts")).href;
    await Deno.writeTextFile(
      join(dir, "probe.ts"),
      `import { OpenAIChatClient } from ${JSON.stringify(client)};
const chat = new OpenAIChatClient({ apiKey: "k", baseURL: "http://127.0.0.1:9/v1" });
console.log("constructed", chat.model);
try {
  await chat.complete({ messages: [{ role: "user", content: "hello" }] });
  console.log("sent");
} catch (error) {
  console.log("first send:", (error as Error).message);
}
`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-lock", "--config", join(dir, "deno.json"), join(dir, "probe.ts")],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.equal(stdout, "constructed qwen3.8-max\nfirst send: the openai SDK was evaluated\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
