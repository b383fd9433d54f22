import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import type { HotpotRecord } from "../src/data/hotpot_record.ts";
import { OpenAIChatClient } from "../src/models/chat_client.ts";
import { UsageError } from "../src/errors.ts";
import {
  collectLive,
  collectScripted,
  importHermesSession,
} from "../src/suites/hotpot/collect/collect_question.ts";
import {
  checkCollection,
  initialSystemPrompt,
  SYSTEM_PROMPT,
} from "../src/suites/hotpot/collect/collection_checks.ts";
import { createHash } from "node:crypto";
import {
  executeReadFile,
  parseNumberedLines,
  ReadFileResultSchema,
  sentenceIdFromLineNumber,
} from "../src/suites/hotpot/read_file.ts";
import { titleSlug, uniqueSlugs } from "../src/suites/hotpot/workspace.ts";

const [RECORD] = generateHotpotRecords(1, "collect");

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "hotpot_collect_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("scripted collection reads every article whole and passes the checks", async () => {
  await withTempDir(async (dir) => {
    const c = await collectScripted(RECORD, dir);
    assert.equal(c.messages[0].content, SYSTEM_PROMPT);
    assert.match(
      c.messages[1].content ?? "",
      new RegExp(`Question: ${RECORD.question.replace(/[?]/g, "\\?")}`),
    );
    assert.equal(c.messages.length, 2 + 2 * 10);
    assert.deepEqual(checkCollection(c, RECORD), { valid: true, files_unchanged: "verified" });
    const files = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.equal(files.length, 10);
    assert.deepEqual(
      files,
      c.messages.filter((m) => m.role === "assistant").map((m) =>
        JSON.parse(m.tool_calls![0].function.arguments).path
      ).sort(),
    );
    // Line N shows sentence N - 1.
    const result = ReadFileResultSchema.parse(JSON.parse(c.messages[3].content ?? ""));
    const lines = parseNumberedLines(result.content);
    assert.equal(lines[2].line, 3);
    assert.equal(lines[2].text, RECORD.context[0].sentences[sentenceIdFromLineNumber(3)]);
    assert.equal(result.content.split("\n")[0], `     1|${RECORD.context[0].sentences[0]}`);
  });
});

Deno.test("scripted collection is deterministic", async () => {
  await withTempDir(async (dir) => {
    const a = await collectScripted(RECORD, join(dir, "a"));
    const b = await collectScripted(RECORD, join(dir, "b"));
    assert.deepEqual(a, b);
  });
});

Deno.test("a truncated read invalidates the collection", async () => {
  await withTempDir(async (dir) => {
    const c = await collectScripted(RECORD, dir);
    const result = JSON.parse(c.messages[5].content ?? "");
    const lines = result.content.split("\n");
    result.content = lines.slice(0, -2).join("\n") + "\n" + lines[lines.length - 2].slice(0, 20);
    result.truncated = true;
    c.messages[5].content = JSON.stringify(result);
    const check = checkCollection(c, RECORD);
    assert.equal(check.valid, false);
    assert.match(check.valid ? "" : check.reason, /shows line \d+ cut short \(truncated read\)/);
    assert.match(
      check.valid ? "" : check.reason,
      /not read whole: lines \d+-\d+ never shown \(missing page: read call_\d+ said more follows from line \d+, and no read showed it; truncated read: the tool cut a line\)/,
    );
  });
});

Deno.test("a truncating read_file limit leaves lines unread and invalidates", async () => {
  await withTempDir(async (dir) => {
    const c = await collectScripted(RECORD, dir);
    const call = c.messages[4].tool_calls![0];
    const args = JSON.stringify({ path: JSON.parse(call.function.arguments).path, limit: 2 });
    call.function.arguments = args;
    c.messages[5].content = await executeReadFile(dir, args);
    assert.equal(JSON.parse(c.messages[5].content).truncated, true);
    const check = checkCollection(c, RECORD);
    assert.equal(check.valid, false);
    assert.match(check.valid ? "" : check.reason, /not read whole: lines 3-\d+ never shown/);
  });
});

Deno.test("an unpaired tool call invalidates the collection", async () => {
  await withTempDir(async (dir) => {
    const c = await collectScripted(RECORD, dir);
    const extra = structuredClone(c);
    extra.messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_99", type: "function", function: { name: "read_file", arguments: "{}" } }],
    });
    const a = checkCollection(extra, RECORD);
    assert.equal(a.valid, false);
    assert.match(a.valid ? "" : a.reason, /tool call call_99 has no result/);

    const orphan = structuredClone(c);
    orphan.messages.splice(2, 1); // drop the first assistant call, keep its result
    const b = checkCollection(orphan, RECORD);
    assert.match(b.valid ? "" : b.reason, /tool result at message 2 answers no earlier call \(call_01\)/);

    const twice = structuredClone(c);
    twice.messages.push(structuredClone(twice.messages[3]));
    const d = checkCollection(twice, RECORD);
    assert.match(d.valid ? "" : d.reason, /tool call call_01 has 2 results/);
  });
});

Deno.test("a workspace file changed during collection invalidates it", async () => {
  await withTempDir(async (dir) => {
    const c = await collectScripted(RECORD, dir);
    const name = Object.keys(c.hashes_after!)[4];
    c.hashes_after![name] = "0".repeat(64);
    const check = checkCollection(c, RECORD);
    assert.equal(check.valid, false);
    assert.match(
      check.valid ? "" : check.reason,
      new RegExp(`workspace file ${name} changed during collection`),
    );
  });
});

Deno.test("the agent's own system prompt passes and is recorded with its hash; a missing or empty one invalidates", async () => {
  await withTempDir(async (dir) => {
    const c = await collectScripted(RECORD, dir);
    const other = structuredClone(c);
    const hermesPrompt = "You are Hermes Agent, an intelligent AI assistant created by Nous Research.";
    other.messages[0].content = hermesPrompt;
    assert.deepEqual(checkCollection(other, RECORD), { valid: true, files_unchanged: "verified" });
    assert.deepEqual(initialSystemPrompt(other.messages), {
      text: hermesPrompt,
      sha256: createHash("sha256").update(hermesPrompt, "utf8").digest("hex"),
    });
    const empty = structuredClone(c);
    empty.messages[0].content = "";
    const emptyCheck = checkCollection(empty, RECORD);
    assert.match(emptyCheck.valid ? "" : emptyCheck.reason, /^initial system prompt missing/);
    assert.equal(initialSystemPrompt(empty.messages), null);
    c.messages.shift();
    const check = checkCollection(c, RECORD);
    assert.match(check.valid ? "" : check.reason, /^initial system prompt missing/);
  });
});

Deno.test("without workspace hashes, files unchanged is not verifiable (never passed) and the content check still runs", async () => {
  await withTempDir(async (dir) => {
    const scripted = await collectScripted(RECORD, dir);
    const c = importHermesSession({ messages: scripted.messages }, RECORD);
    assert.equal(c.hashes_before, null);
    assert.deepEqual(checkCollection(c, RECORD), { valid: true, files_unchanged: "not verifiable" });
    // An altered line is still caught without hashes.
    const result = JSON.parse(c.messages[3].content ?? "");
    result.content = result.content.replace(/\|(.)/, "|X$1");
    c.messages[3].content = JSON.stringify(result);
    const check = checkCollection(c, RECORD);
    assert.equal(check.files_unchanged, "not verifiable");
    assert.match(check.valid ? "" : check.reason, /shows line 1 redacted or altered/);
    // With hashes in the session, they are checked.
    const withHashes = importHermesSession(
      {
        messages: scripted.messages,
        workspace_hashes_before: scripted.hashes_before,
        workspace_hashes_after: { ...scripted.hashes_after, [Object.keys(scripted.hashes_after!)[0]]: "0" },
      },
      RECORD,
    );
    const hashed = checkCollection(withHashes, RECORD);
    assert.equal(hashed.files_unchanged, "verified");
    assert.match(hashed.valid ? "" : hashed.reason, /changed during collection/);
  });
});

Deno.test("read_file refuses paths outside the workspace and reports missing files", async () => {
  await withTempDir(async (dir) => {
    await collectScripted(RECORD, join(dir, "ws"));
    await Deno.writeTextFile(join(dir, "secret.txt"), "gold");
    assert.match(
      await executeReadFile(join(dir, "ws"), JSON.stringify({ path: "../secret.txt" })),
      /outside/,
    );
    assert.match(
      await executeReadFile(join(dir, "ws"), JSON.stringify({ path: "nope.txt" })),
      /file not found/,
    );
    assert.match(await executeReadFile(join(dir, "ws"), "{"), /not valid JSON/);
  });
});

Deno.test("workspace file names are safe and unique", () => {
  assert.equal(titleSlug("Café Noir (1999 film)"), "cafe_noir_1999_film");
  assert.equal(titleSlug("..//"), "article");
  assert.deepEqual(uniqueSlugs(["A b", "a-b", "A B"]), ["a_b", "a_b_2", "a_b_3"]);
});

/** A loopback OpenAI-compatible server that acts as an agent: reads each listed file once, then answers. */
function agentServer(): { url: string; close: () => Promise<void>; requests: unknown[] } {
  const requests: unknown[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    requests.push(body);
    const messages = body.messages as { role: string; content: string | null }[];
    const files = [...(messages[1].content ?? "").matchAll(/^- (\S+)/gm)].map((m) => m[1]);
    const done = messages.filter((m) => m.role === "tool").length;
    const message = done < files.length
      ? {
        role: "assistant",
        content: "",
        tool_calls: [{
          id: `live_${done}`,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: files[done] }) },
        }],
      }
      : { role: "assistant", content: '{"answer": "done", "supporting_facts": []}' };
    return Response.json({
      id: "x",
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: done < files.length ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  });
  const { port } = server.addr as Deno.NetAddr;
  return { url: `http://127.0.0.1:${port}/v1`, close: () => server.shutdown(), requests };
}

Deno.test("live collection runs a real agent loop over HTTP and passes the checks", async () => {
  const srv = agentServer();
  try {
    await withTempDir(async (dir) => {
      const chat = new OpenAIChatClient({
        apiKey: "test-key",
        baseURL: srv.url,
        model: "agent",
        maxRetries: 0,
      });
      const c = await collectLive(RECORD, dir, chat, { maxSteps: 20 });
      assert.equal(c.stop_reason, "answered");
      assert.equal(c.final_answer, '{"answer": "done", "supporting_facts": []}');
      assert.equal(c.calls?.length, 11);
      assert.equal(c.messages.at(-1)?.role, "tool");
      assert.deepEqual(checkCollection(c, RECORD), { valid: true, files_unchanged: "verified" });
      const first = srv.requests[0] as { tools: { function: { name: string } }[] };
      assert.equal(first.tools[0].function.name, "read_file");
    });
    await withTempDir(async (dir) => {
      const chat = new OpenAIChatClient({
        apiKey: "test-key",
        baseURL: srv.url,
        model: "agent",
        maxRetries: 0,
      });
      const c = await collectLive(RECORD, dir, chat, { maxSteps: 4 });
      assert.equal(c.stop_reason, "step_cap");
      const check = checkCollection(c, RECORD);
      assert.match(check.valid ? "" : check.reason, /not read whole/);
    });
  } finally {
    await srv.close();
  }
});

const HERMES = fileURLToPath(
  new URL("./fixtures/shared_data/hermes_session_feature_impl.json", import.meta.url),
);

Deno.test("Hermes import keeps only public chat fields and sets the final answer aside", async () => {
  await withTempDir(async (dir) => {
    const scripted = await collectScripted(RECORD, dir);
    const session = {
      name: "hotpot",
      messages: [
        ...scripted.messages.map((m, i) => i === 2 ? { ...m, reasoning: "secret", timestamp: 5 } : m),
        { role: "assistant", content: "The answer is X.", finish_reason: "stop" },
      ],
    };
    const c = importHermesSession(session, RECORD);
    assert.equal(c.final_answer, "The answer is X.");
    assert.deepEqual(c.messages, scripted.messages);
    assert.ok(!("reasoning" in c.messages[2]));
    assert.deepEqual(checkCollection(c, RECORD), { valid: true, files_unchanged: "not verifiable" });
  });
});

Deno.test("a real Hermes session of another task imports but fails the checks with reasons", async () => {
  const json = JSON.parse(await Deno.readTextFile(HERMES));
  const c = importHermesSession(json, RECORD, "hermes_session_feature_impl.json");
  for (const m of c.messages) {
    for (const key of Object.keys(m)) {
      assert.ok(["role", "content", "tool_calls", "tool_call_id", "name"].includes(key));
    }
  }
  const check = checkCollection(c, RECORD);
  assert.equal(check.valid, false);
  assert.match(check.valid ? "" : check.reason, /not read whole: lines 1-\d+ never shown/);
  // Its own system prompt counts as present (it is Hermes' prompt, not ours) and is recorded.
  assert.doesNotMatch(check.valid ? "" : check.reason, /system prompt/);
  assert.equal(initialSystemPrompt(c.messages)?.text, json.messages[0].content);
  assert.equal(check.files_unchanged, "not verifiable");
});

Deno.test("Hermes import names the message and field of a bad message", () => {
  const bad = { messages: [{ role: "system", content: "x" }, { role: "robot", content: "y" }] };
  assert.throws(() => importHermesSession(bad, RECORD as HotpotRecord, "s.json"), (e: Error) => {
    assert.ok(e instanceof UsageError);
    assert.match(e.message, /s\.json: messages\[1\]: field role/);
    return true;
  });
});
