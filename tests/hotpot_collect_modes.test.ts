/**
 * `hotpot collect` collection modes through the real CLI: the mode is required for a dataset, recorded in
 * corpus.json; an outside agent (`--agent exec:CMD`, a stand-in agent script written here) collects in its
 * own workspace with its own system prompt; adapters/hermes_collect.py runs a stand-in Hermes `AIAgent` module
 * and says clearly when Hermes cannot be imported; a collection without a valid question exits 1.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CorpusSchema } from "../src/suites/hotpot/corpus.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_collect_modes_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** The CLI with the stand-in Hermes' endpoint (it never calls it) set for its child only, never in `Deno.env`. */
const cli = (args: string[]) => runCli(args, { LLM_BASE_URL: "http://127.0.0.1:9/v1" });
const REAL20 = join(ROOT, "tests/fixtures/shared_data/hotpot_dev_real20.official.json");
const AGENT_PROMPT = "You are Stand-in Agent. You read files with read_file and answer from them.";

/** Python that reads a workspace file as Hermes' read_file shows it (JSON with numbered lines). */
const READ_FILE_PY = `
import json, os
def read_file(path):
    data = open(path, "rb").read()
    text = data.decode("utf-8")
    body = text[:-1] if text.endswith("\\n") else text
    lines = body.split("\\n") if text else []
    content = "\\n".join(f"{i + 1:>6}|{line}" for i, line in enumerate(lines))
    return json.dumps({"content": content, "total_lines": len(lines), "file_size": len(data),
                       "truncated": False, "is_binary": False, "is_image": False})
`;

/** A stand-in outside agent: reads every file of its cwd workspace; optionally edits one afterwards. */
const AGENT_PY = `import json, sys, os
${READ_FILE_PY}
request = json.load(sys.stdin)
assert os.path.samefile(os.getcwd(), request["workspace"])
messages = [{"role": "system", "content": request.get("system_prompt") or ${JSON.stringify(AGENT_PROMPT)}},
            {"role": "user", "content": "Question: " + request["question"]}]
for i, path in enumerate(request["files"]):
    call = {"id": f"toolu_{i}", "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}
    messages.append({"role": "assistant", "content": None, "tool_calls": [call], "reasoning": "scratch",
                     "finish_reason": "tool_calls"})
    messages.append({"role": "tool", "tool_call_id": call["id"], "content": read_file(path), "timestamp": i})
messages.append({"role": "assistant", "content": "done"})
if "--edit" in sys.argv:
    open(request["files"][0], "a").write("tampered\\n")
print(json.dumps({"session_id": "s", "model": "stand-in", "messages": messages}))
`;

/** A stand-in Hermes checkout: run_agent.AIAgent with Hermes' constructor keywords and run_conversation. */
const RUN_AGENT_PY = `import json, os, re
${READ_FILE_PY}
class AIAgent:
    def __init__(self, model=None, base_url=None, api_key=None, enabled_toolsets=None, max_iterations=90,
                 quiet_mode=False, save_trajectories=False, reasoning_config=None, **kwargs):
        assert enabled_toolsets == ["file"]
        self.session_id = "stand-in-session"
        self.compression_enabled = True
        self._cached_system_prompt = "You are Hermes Agent (stand-in)."
    def run_conversation(self, user_message, **kwargs):
        assert self.compression_enabled is False
        files = re.findall(r"^- (\\S+)", user_message, re.M)
        messages = [{"role": "user", "content": user_message}]
        for i, path in enumerate(files):
            call = {"id": f"call_{i}", "type": "function",
                    "function": {"name": "read_file", "arguments": json.dumps({"path": path})}}
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": read_file(path)})
        messages.append({"role": "assistant", "content": "answer"})
        return {"completed": True, "final_response": "answer", "messages": messages}
`;

await Deno.writeTextFile(join(dir, "agent.py"), AGENT_PY);
await Deno.mkdir(join(dir, "hermes"));
await Deno.writeTextFile(join(dir, "hermes", "run_agent.py"), RUN_AGENT_PY);

async function corpusOf(run: string) {
  return CorpusSchema.parse(JSON.parse(await Deno.readTextFile(join(run, "corpus.json"))));
}

Deno.test("a dataset other than the embedded demo needs an explicit collection mode; nothing is written", async () => {
  const out = join(dir, "no-mode");
  const result = await cli(["hotpot", "collect", "--dataset", REAL20, "--output", out, "-q"]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--scripted .*--live, --hermes-sessions DIR or --agent exec:'CMD'/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  const both = await cli([
    "hotpot",
    "collect",
    "--scripted",
    "--agent",
    "exec:true",
    "--output",
    out,
    "-q",
  ]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /choose one of --scripted, --live, --hermes-sessions and --agent/);
});

Deno.test("hotpot collect --help lists --live once, with the collection modes", async () => {
  const result = await cli(["hotpot", "collect", "--help"]);
  assert.equal(result.code, 0);
  assert.equal(result.stdout.match(/^ +--live\b/gm)?.length, 1, result.stdout);
  assert.match(result.stdout, /--agent exec:'CMD'/);
});

Deno.test("an outside agent collects in its workspace with its own system prompt; the mode is in corpus.json and the report", async () => {
  const out = join(dir, "agent");
  const result = await cli([
    "hotpot",
    "collect",
    "--questions",
    "2",
    "--agent",
    `exec:python3 ${join(dir, "agent.py")}`,
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  assert.match(result.stdout, /collected 2\/2 valid trajectories \(collection: agent\)/);
  const corpus = await corpusOf(out);
  assert.equal(corpus.protocol.collection, "agent");
  assert.equal(corpus.protocol.agent, `exec:python3 ${join(dir, "agent.py")}`);
  for (const q of corpus.questions) {
    assert.equal(q.collection, "agent");
    assert.equal(q.valid, true, q.reason);
    assert.equal(q.files_unchanged, "verified");
    assert.equal(q.system_prompt?.text, AGENT_PROMPT);
    assert.equal(q.trajectory[0].content, AGENT_PROMPT);
    for (const m of q.trajectory) assert.ok(!("reasoning" in m) && !("timestamp" in m));
    assert.notEqual(q.trajectory.at(-1)?.content, "done", "the final answer is set aside");
  }
  // The agent's raw stdout is kept with its collect node.
  const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
  const collect = manifest.nodes.filter((n: { stage: string }) => n.stage === "hotpot-collect");
  assert.equal(collect.length, 2);
  for (const node of collect) assert.ok(node.outputs.session_text, node.label);

  const run = join(dir, "agent-run");
  const scored = await cli([
    "hotpot",
    "run",
    "--reference",
    "--corpus",
    join(out, "corpus.json"),
    "--methods",
    "full",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--output",
    run,
    "-q",
  ]);
  assert.equal(scored.code, 0, scored.stderr);
  const report = await Deno.readTextFile(join(run, "REPORT.md"));
  assert.match(report.split("\n")[0], /^# hotpot \(agent collection\)/);
  assert.match(report, /- Collection: agent \(outside agent `exec:python3 /);
  assert.ok(report.includes(corpus.questions[0].system_prompt!.sha256.slice(0, 16)));
  assert.ok(report.includes(AGENT_PROMPT));
  assert.match(await Deno.readTextFile(join(run, "report.html")), /hotpot \(agent collection\)/);
  for (
    const caveat of [
      /not a billing\s+claim/,
      /filtered subset .*not a\s+representative full-dataset score/,
      /may be in a model's training data/,
      /not evidence of agent-task success/,
    ]
  ) assert.match(report, caveat);
});

Deno.test("an outside agent that edits a workspace file is caught by the workspace hashes", async () => {
  const out = join(dir, "agent-edit");
  const result = await cli([
    "hotpot",
    "collect",
    "--questions",
    "2",
    "--agent",
    `exec:python3 ${join(dir, "agent.py")} --edit`,
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 1, "no valid question: exit 1");
  assert.match(result.stdout, /collected 0\/2 valid/);
  assert.match(result.stdout, /changed during collection/);
  assert.match(result.stderr, /no valid trajectory/);
  // The run is still written and sealed.
  await Deno.stat(join(out, "manifest.json"));
});

Deno.test("adapters/hermes_collect.py runs Hermes' AIAgent (a stand-in module) and its session passes collection", async () => {
  const out = join(dir, "hermes-adapter");
  const result = await cli([
    "hotpot",
    "collect",
    "--questions",
    "2",
    "--agent",
    `exec:python3 ${join(ROOT, "adapters", "hermes_collect.py")} --hermes ${join(dir, "hermes")}`,
    "--agent-env",
    "LLM_BASE_URL",
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const corpus = await corpusOf(out);
  for (const q of corpus.questions) {
    assert.equal(q.valid, true, q.reason);
    assert.equal(q.system_prompt?.text, "You are Hermes Agent (stand-in).");
  }
});

Deno.test("adapters/hermes_collect.py without Hermes says so: every question invalid with the reason, exit 1", async () => {
  const out = join(dir, "no-hermes");
  const missing = join(dir, "no-such-hermes");
  const result = await cli([
    "hotpot",
    "collect",
    "--questions",
    "2",
    "--agent",
    `exec:python3 ${join(ROOT, "adapters", "hermes_collect.py")} --hermes ${missing}`,
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stdout,
    /agent: exited with code 3: hermes_collect\.py: Hermes Agent directory .* does not exist/,
  );
  const empty = join(dir, "hermes-empty");
  await Deno.mkdir(empty);
  const direct = await new Deno.Command("python3", {
    args: [join(ROOT, "adapters", "hermes_collect.py"), "--hermes", empty],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = direct.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify({ question: "q", files: ["a.txt"] })));
  await writer.close();
  const output = await direct.output();
  assert.equal(output.code, 3);
  assert.equal(output.stdout.length, 0);
  assert.match(
    new TextDecoder().decode(output.stderr),
    /cannot import Hermes Agent \(run_agent\.AIAgent\) from .*ModuleNotFoundError/,
  );
});

Deno.test("Hermes sessions with Hermes' own prompt import valid; each raw file is a source blob and an input of its collect node", async () => {
  const scripted = join(dir, "scripted");
  const made = await cli(["hotpot", "collect", "--questions", "3", "--output", scripted, "-q"]);
  assert.equal(made.code, 0, made.stderr);
  const base = await corpusOf(scripted);
  const sessions = join(dir, "sessions");
  await Deno.mkdir(sessions);
  const hermesPrompt = "You are Hermes Agent, an intelligent AI assistant created by Nous Research.";
  for (const [i, q] of base.questions.entries()) {
    const messages: Record<string, unknown>[] = q.trajectory.map((m, j) => ({
      ...m,
      timestamp: 1764500000 + j,
    }));
    messages[0] = { ...messages[0], content: hermesPrompt };
    if (i === 2) messages.shift(); // no system prompt at all
    await Deno.writeTextFile(
      join(sessions, `${q.id}.json`),
      JSON.stringify({ session_id: `s${i}`, platform: "cli", messages }),
    );
  }
  const out = join(dir, "hermes-import");
  const result = await cli([
    "hotpot",
    "collect",
    "--questions",
    "3",
    "--hermes-sessions",
    sessions,
    "--output",
    out,
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /collected 2\/3 valid trajectories \(collection: hermes\)/);
  assert.match(result.stdout, /invalid \S+: initial system prompt missing/);
  assert.match(result.stdout, /files unchanged: not verifiable for 3 of 3 question\(s\)/);
  const corpus = await corpusOf(out);
  const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
  for (const q of corpus.questions) {
    assert.equal(q.files_unchanged, "not verifiable");
    const bytes = await Deno.readFile(join(sessions, `${q.id}.json`));
    const hash = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)))
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    assert.equal(manifest.sources[`session:${q.id}`], hash, q.id);
    const node = manifest.nodes.find((n: { label: string }) => n.label === `collect q=${q.id}`);
    assert.equal(node.inputs.session, hash, q.id);
  }
  assert.equal(corpus.questions.filter((q) => q.system_prompt?.text === hermesPrompt).length, 2);
  const verified = await cli(["verify", out]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

Deno.test("an outside agent past --agent-timeout is killed and its question recorded invalid with the reason", async () => {
  const slow = join(dir, "slow.py");
  await Deno.writeTextFile(slow, "import sys, time\nsys.stdin.read()\ntime.sleep(60)\n");
  const out = join(dir, "agent-slow");
  const result = await cli([
    "hotpot",
    "collect",
    "--questions",
    "2",
    "--agent",
    `exec:python3 ${slow}`,
    "--agent-timeout",
    "1",
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /agent: timed out after 1000 ms \(killed\)/);
  const corpus = await corpusOf(out);
  assert.ok(corpus.questions.every((q) => !q.valid && q.files_unchanged === "not verifiable"));
});

Deno.test("--agent-system-prompt hands a system prompt to the agent, which the trajectory records", async () => {
  const promptFile = join(dir, "prompt.txt");
  await Deno.writeTextFile(promptFile, "You are the given prompt.");
  const out = join(dir, "agent-prompt");
  const result = await cli([
    "hotpot",
    "collect",
    "--questions",
    "2",
    "--agent",
    `exec:python3 ${join(dir, "agent.py")}`,
    "--agent-system-prompt",
    promptFile,
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  for (const q of (await corpusOf(out)).questions) {
    assert.equal(q.system_prompt?.text, "You are the given prompt.");
  }
  const misplaced = await cli([
    "hotpot",
    "collect",
    "--scripted",
    "--agent-system-prompt",
    promptFile,
    "-q",
  ]);
  assert.equal(misplaced.code, 2);
  assert.match(misplaced.stderr, /need --agent exec:'CMD'/);
});
