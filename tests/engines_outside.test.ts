import assert from "node:assert/strict";
import { createEngine } from "../src/methods/engines/create.ts";
import { EngineError } from "../src/methods/engines/engine.ts";
import { splitCommandLine } from "../src/methods/engines/split_command.ts";
import { toolPairingProblem } from "../src/methods/engines/tool_groups.ts";
import { UsageError } from "../src/errors.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { keepLast } from "./engines_fixtures/keep_last_engine.ts";
import { sharedCounter } from "./engines_fixtures/models.ts";

const fixture = (name: string) => new URL(`./engines_fixtures/${name}`, import.meta.url).pathname;
const deno = Deno.execPath();
const KEEP_LAST = `exec:'${deno}' run --quiet ${fixture("keep_last_engine.ts")} 8`;
const misbehaving = (mode: string) =>
  `exec:'${deno}' run --quiet ${fixture("misbehaving_engine.ts")} ${mode}`;

Deno.test("command lines split shell-like without a shell", () => {
  assert.deepEqual(splitCommandLine(`python3 -m 'my engine' "a \\"b\\"" c\\ d  $HOME`), [
    "python3",
    "-m",
    "my engine",
    'a "b"',
    "c d",
    "$HOME",
  ]);
  assert.throws(() => splitCommandLine("run 'oops"), UsageError);
});

Deno.test("an outside engine script runs through exec: and through http: with the same result", async () => {
  const counter = await sharedCounter();
  const { messages } = generateTranscript({ turns: 20, needles: 2 });
  const opts = { budgetTokens: 500, currentTokens: counter.countMessages(messages), counter };
  const viaExec = await createEngine(KEEP_LAST, { timeoutMs: 20_000 }).compress(messages, opts);
  let seen: unknown;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json();
    seen = { budget_tokens: body.budget_tokens, current_tokens: body.current_tokens };
    return Response.json(keepLast(body, 8));
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/compress`;
    const viaHttp = await createEngine(`http:${url}`, { timeoutMs: 5_000 }).compress(messages, opts);
    assert.deepEqual(viaHttp.messages, viaExec.messages);
    assert.deepEqual(seen, { budget_tokens: 500, current_tokens: opts.currentTokens });
  } finally {
    await server.shutdown();
  }
  assert.equal(viaExec.messages[0].role, "system");
  assert.ok(viaExec.messages.length <= 9);
  assert.equal(toolPairingProblem(viaExec.messages), null);
});

Deno.test("misbehaving outside engines are recorded as failures with a reason, and the run goes on", async () => {
  const counter = await sharedCounter();
  const { messages, needles } = generateTranscript({ turns: 12, needles: 2 });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    return new URL(request.url).pathname === "/slow"
      ? new Promise<Response>((resolve) => setTimeout(() => resolve(Response.json({ messages })), 3_000))
      : new Response("nope", { status: 500 });
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const results = await runEngines({
      messages,
      needles,
      engines: [
        misbehaving("bad-json"),
        misbehaving("bad-shape"),
        misbehaving("broken-pairs"),
        misbehaving("grow"),
        misbehaving("crash"),
        misbehaving("sleep"),
        "exec:/nonexistent/engine",
        `http:${base}/slow`,
        `http:${base}/error`,
        "truncate",
      ],
      repeats: 1,
      counter,
      timeoutMs: 1_500,
    });
    const reasons = results.map((r) => [r.status, r.reason]);
    const expected: RegExp[] = [
      /output is not JSON/,
      /output field 'messages'/,
      /broken tool pairing: message \d+: tool call 'call_[0-9a-f]+' has no result/,
      /window grew from \d+ to \d+ tokens/,
      /exited with code 3: engine exploded: simulated failure/,
      /timed out after 1500 ms \(killed\)/,
      /cannot start '\/nonexistent\/engine'/,
      /timed out after 1500 ms \(aborted\)/,
      /HTTP 500: nope/,
    ];
    expected.forEach((pattern, i) => {
      assert.equal(reasons[i][0], "failed", `engine ${i}`);
      assert.match(reasons[i][1]!, pattern);
    });
    assert.equal(results[2].tool_pairing_valid, false);
    assert.equal(results.at(-1)!.status, "ok");
    assert.equal(results.at(-1)!.reason, null);
  } finally {
    await server.shutdown();
  }
});

Deno.test("exec engine failures are EngineErrors, not crashes", async () => {
  const counter = await sharedCounter();
  const engine = createEngine(misbehaving("crash"), { timeoutMs: 10_000 });
  await assert.rejects(
    engine.compress([{ role: "user", content: "x" }], { budgetTokens: 10, currentTokens: 10, counter }),
    EngineError,
  );
});

Deno.test("an exec: engine whose own child keeps the pipes open is still stopped at the time limit", async () => {
  const counter = await sharedCounter();
  const dir = await Deno.makeTempDir();
  try {
    // The grandchild keeps the pipes open and leaves a mark when it finishes: the engine must fail with its
    // time limit before that (bench/engines.ts prints how long stopping takes).
    const mark = `${dir}/grandchild_finished`;
    const engine = createEngine(`exec:bash -c '(sleep 20; touch ${mark}) | cat; echo done'`, {
      timeoutMs: 500,
    });
    const messages = [{ role: "user" as const, content: "hello" }];
    await assert.rejects(
      () => engine.compress(messages, { budgetTokens: 10, currentTokens: 20, counter }),
      /timed out after 500 ms/,
    );
    assert.equal(await Deno.stat(mark).then(() => true, () => false), false, "waited for the grandchild");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
