/**
 * `hotpot collect --agent exec:CMD --reference`: the outside agent reaches the reference model through the
 * loopback endpoint (LLM_BASE_URL, LLM_MODEL, a per-question token as LLM_API_KEY); each question's calls are
 * its collect node's requests; the token is in no file of the run; without --reference the agent gets none.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

/** A stand-in agent: one chat call through the endpoint it was handed (if any), then reads every file. */
const AGENT_PY = `import json, os, sys, urllib.request
request = json.load(sys.stdin)
base, key = os.environ.get("LLM_BASE_URL"), os.environ.get("LLM_API_KEY")
notes = sys.argv[1]
open(os.path.join(notes, "tokens"), "a").write((key or "none") + "\\n")
answer = "no endpoint"
if base:
    body = json.dumps({"model": os.environ["LLM_MODEL"], "messages": [{"role": "user", "content": request["question"]}]})
    r = urllib.request.Request(base + "/chat/completions", data=body.encode(),
                               headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    answer = json.load(urllib.request.urlopen(r, timeout=30))["choices"][0]["message"]["content"]
def read_file(path):
    text = open(path, encoding="utf-8").read()
    body = text[:-1] if text.endswith("\\n") else text
    lines = body.split("\\n") if text else []
    content = "\\n".join(f"{i + 1:>6}|{line}" for i, line in enumerate(lines))
    return json.dumps({"content": content, "total_lines": len(lines), "file_size": len(text.encode()),
                       "truncated": False, "is_binary": False, "is_image": False})
messages = [{"role": "system", "content": "You are Stand-in Agent."},
            {"role": "user", "content": "Question: " + request["question"]}]
for i, path in enumerate(request["files"]):
    call = {"id": f"toolu_{i}", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}
    messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    messages.append({"role": "tool", "tool_call_id": call["id"], "content": read_file(path)})
messages.append({"role": "assistant", "content": answer})
print(json.dumps({"messages": messages}))
`;

Deno.test("an outside agent collecting with --reference calls the model through the loopback endpoint; its calls are recorded per question", async () => {
  const dir = await Deno.makeTempDir({ prefix: "collect_agent_endpoint_" });
  const notes = join(dir, "notes");
  await Deno.mkdir(notes);
  await Deno.writeTextFile(join(dir, "agent.py"), AGENT_PY);
  try {
    const out = join(dir, "run");
    const agent = `exec:python3 ${join(dir, "agent.py")} ${notes}`;
    const result = await runCli([
      "hotpot",
      "collect",
      "--questions",
      "2",
      "--agent",
      agent,
      "--reference",
      "--output",
      out,
      "-q",
    ]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /collected 2\/2 valid trajectories \(collection: agent\)/);
    const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
    const collects = manifest.nodes.filter((n: { stage: string }) => n.stage === "hotpot-collect");
    assert.equal(collects.length, 2);
    for (const node of collects) {
      assert.equal(node.requests.length, 1, node.label);
      assert.equal(node.usage.calls, 1);
      assert.ok(node.usage.input_tokens > 0);
    }
    assert.equal(manifest.protocol.agent_model.chat_model, "compaction-bench-reference-chat-1.1");
    const tokens = (await Deno.readTextFile(join(notes, "tokens"))).trim().split("\n");
    assert.equal(tokens.length, 2);
    assert.notEqual(tokens[0], tokens[1], "a token per question");
    for (const token of tokens) {
      assert.match(token, /^cb-loopback-[0-9a-f]{48}$/);
      const grep = await new Deno.Command("grep", { args: ["-rl", token, out] }).output();
      assert.equal(new TextDecoder().decode(grep.stdout), "", "the token is in no file of the run");
    }
    const verify = await runCli(["verify", out]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);

    // Without a model option the agent is handed no endpoint (it may still get one with --agent-env).
    await Deno.remove(join(notes, "tokens"));
    const bare = await runCli([
      "hotpot",
      "collect",
      "--questions",
      "1",
      "--agent",
      agent,
      "--output",
      join(dir, "bare"),
      "-q",
    ]);
    assert.equal(bare.code, 0, bare.stderr + bare.stdout);
    assert.equal((await Deno.readTextFile(join(notes, "tokens"))).trim(), "none");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
