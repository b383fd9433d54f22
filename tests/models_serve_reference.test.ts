import assert from "node:assert/strict";
import { serveReferenceCommand } from "../src/cli/serve_reference.ts";
import { UsageError } from "../src/errors.ts";
import { OpenAIChatClient } from "../src/models/chat_client.ts";

const CONFIG = new URL("../deno.json", import.meta.url).pathname;
const COMMAND_MODULE = new URL("../src/cli/serve_reference.ts", import.meta.url).href;

Deno.test("serve-reference prints its help and refuses bad options with a usage error", async () => {
  const printed: string[] = [];
  assert.equal(await serveReferenceCommand(["--help"], { print: (line) => printed.push(line) }), 0);
  assert.match(printed.join("\n"), /Usage: \.\/compaction-bench serve-reference/);
  await assert.rejects(serveReferenceCommand(["--faults", "teapot=1"]), (error) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /--faults: fault spec: unknown fault kind "teapot"/);
    return true;
  });
  await assert.rejects(serveReferenceCommand(["--port", "70000"]), /--port 70000: must be at most 65535/);
  await assert.rejects(serveReferenceCommand(["--delay-ms", "-1"]), UsageError);
  await assert.rejects(serveReferenceCommand(["extra"]), /unexpected argument "extra"/);
});

Deno.test("serve-reference serves both endpoints until SIGTERM, then exits 0", async () => {
  const script = `import { serveReferenceCommand } from ${JSON.stringify(COMMAND_MODULE)};\n` +
    `Deno.exit(await serveReferenceCommand(Deno.args));\n`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--config", CONFIG, "-A", "-", "--seed", "1"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let terminated = false;
  try {
    let printed = "";
    while (!printed.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      printed += value;
    }
    const baseUrl = printed.trim();
    assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = new OpenAIChatClient({ apiKey: "sk-test-SECRET", baseURL: baseUrl });
    const result = await client.complete({
      messages: [{ role: "user", content: "The port is open. Is the port open?" }],
    });
    assert.ok(result.ok, !result.ok ? result.error : "");
    const decision = await fetch(`${baseUrl}/systemone`, {
      method: "POST",
      body: JSON.stringify({
        model: "jev-latest",
        state: "port",
        questions: [{ type: "noul", instructions: "port" }],
      }),
    });
    assert.equal(decision.status, 200);
    await decision.body?.cancel();
    const invalid = await fetch(`${baseUrl}/systemone`, { method: "POST", body: '{"model": "m"}' });
    assert.equal(invalid.status, 400);
    assert.match((await invalid.json()).error.message, /systemone request: state/);
    child.kill("SIGTERM");
    terminated = true;
    const status = await child.status;
    await reader.cancel();
    const errors = await new Response(child.stderr).text();
    assert.equal(status.code, 0, errors);
  } finally {
    if (!terminated) {
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel();
      await child.stderr.cancel();
    }
  }
});

Deno.test("serve-reference on a busy port: exit 2, 'port N is in use'", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (busy.addr as Deno.NetAddr).port;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../main.ts", import.meta.url).pathname,
        "serve-reference",
        "--port",
        `${port}`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 2, stderr);
    assert.match(
      stderr,
      new RegExp(`^error: serve-reference: port ${port} is in use .*--port 0 for a free one`),
    );
    assert.doesNotMatch(stderr, /internal error/);
  } finally {
    busy.close();
  }
});
