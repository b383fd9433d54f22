/**
 * An outside engine that misbehaves on purpose, for tests: `deno run misbehaving_engine.ts MODE` with
 * MODE one of `bad-json` (prints non-JSON), `bad-shape` (JSON without messages), `broken-pairs` (drops a
 * tool result but keeps its call), `grow` (returns the input plus a long message), `sleep` (never answers
 * in time), `crash` (exits with code 3 after writing to stderr).
 *
 * @module
 */

interface Message {
  role: string;
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

const mode = Deno.args[0];
const input = JSON.parse(await new Response(Deno.stdin.readable).text()) as { messages: Message[] };
switch (mode) {
  case "bad-json":
    console.log("this is not json {");
    break;
  case "bad-shape":
    console.log(JSON.stringify({ window: [] }));
    break;
  case "broken-pairs": {
    const firstResult = input.messages.findIndex((message) => message.role === "tool");
    console.log(JSON.stringify({ messages: input.messages.filter((_, i) => i !== firstResult) }));
    break;
  }
  case "grow":
    console.log(JSON.stringify({
      messages: [...input.messages, { role: "user", content: "more ".repeat(500) }],
    }));
    break;
  case "sleep":
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    break;
  case "crash":
    console.error("engine exploded: simulated failure");
    Deno.exit(3);
    break;
  default:
    console.error(`unknown mode ${mode}`);
    Deno.exit(2);
}
