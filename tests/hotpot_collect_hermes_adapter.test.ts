/**
 * adapters/hermes_collect.py as the real Hermes Agent meets it, with a stand-in Hermes checkout written here
 * (no real Hermes needed): Hermes' console noise on stdout (its own prints and a child process's) stays out
 * of the session; reads paged like Hermes' read_file (`%6d|` lines, a page-end empty line, `truncated` and an
 * `offset=K` hint) pass the collection checks; a throw-away HOME/HERMES_HOME per question, removed after; an
 * agent that did not finish exits non-zero and its question is invalid with the reason; Hermes' version and
 * commit are recorded with the session; the agent sees only the `exec:` environment plus `--agent-env`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CorpusSchema } from "../src/suites/hotpot/corpus.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_hermes_adapter_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** A stand-in Hermes: noisy on stdout, reads with Hermes' framing in pages of STANDIN_PAGE_LINES lines. */
const RUN_AGENT_PY = `import json, os, re, subprocess
PAGE = int(os.environ.get("STANDIN_PAGE_LINES", "500"))

def read_file(path, offset=1, limit=PAGE):
    lines = open(path, encoding="utf-8").read().split("\\n")  # like sed output split at every newline
    body = lines[:-1] if lines and lines[-1] == "" else lines
    end = offset + limit - 1
    shown = body[offset - 1:end]
    text = "".join(line + "\\n" for line in shown)
    numbered = "\\n".join(f"{i:6d}|{line}" for i, line in enumerate(text.split("\\n"), start=offset))
    result = {"content": numbered, "total_lines": len(body), "file_size": os.path.getsize(path),
              "truncated": len(body) > end, "is_binary": False, "is_image": False}
    if result["truncated"]:
        result["hint"] = f"Use offset={end + 1} to continue reading (showing {offset}-{end} of {len(body)} lines)"
    return json.dumps(result)

class AIAgent:
    def __init__(self, model=None, base_url=None, api_key=None, enabled_toolsets=None, max_iterations=90,
                 tool_delay=1.0, quiet_mode=False, save_trajectories=False, reasoning_config=None):
        assert reasoning_config == {"enabled": False}
        assert base_url == os.environ["LLM_BASE_URL"]
        self.session_id = "stand-in-session"
        self.compression_enabled = True
        self._cached_system_prompt = "You are Hermes Agent (stand-in)."

    def run_conversation(self, user_message, system_message=None):
        assert self.compression_enabled is False
        assert re.search(r"^- \\S+ \\(article: .+\\)$", user_message, re.M), "the task names each article's title"
        home, hermes_home = os.environ["HOME"], os.environ["HERMES_HOME"]
        assert hermes_home.startswith(home + os.sep)
        config = json.load(open(os.path.join(hermes_home, "config.yaml")))
        assert config["compression"]["enabled"] is False
        os.makedirs(os.path.join(hermes_home, "sessions"), exist_ok=True)
        open(os.path.join(hermes_home, "sessions", "request_dump.json"), "w").write("{}")
        with open(os.environ["STANDIN_REPORT"], "a") as report:
            report.write(json.dumps({"home": home, "env": sorted(os.environ)}) + "\\n")
        print("⚠️  API call failed (stand-in console noise on stdout)")
        subprocess.run(["sh", "-c", "echo child process noise on stdout"], check=True)
        files = re.findall(r"^- (\\S+)", user_message, re.M)
        messages = [{"role": "user", "content": user_message}]
        n = 0
        for path in files:
            offset = 1
            while True:
                n += 1
                args = {"path": path} if offset == 1 else {"path": path, "offset": offset}
                call = {"id": f"call_{n}", "call_id": f"call_{n}", "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps(args)}}
                messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
                result = read_file(path, offset)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
                page = json.loads(result)
                if not page["truncated"]:
                    break
                offset = int(re.search(r"offset=(\\d+)", page["hint"]).group(1))
        if os.environ.get("STANDIN_FAIL"):
            return {"completed": False, "failed": True, "error": "Connection error.", "messages": messages}
        messages.append({"role": "assistant", "content": "answer"})
        return {"completed": True, "api_calls": n + 1, "turn_exit_reason": "text_response(finish_reason=stop)",
                "final_response": "answer", "messages": messages}
`;

const hermes = join(dir, "hermes");
await Deno.mkdir(join(hermes, "hermes_cli"), { recursive: true });
await Deno.writeTextFile(join(hermes, "run_agent.py"), RUN_AGENT_PY);
await Deno.writeTextFile(join(hermes, "hermes_cli", "__init__.py"), '__version__ = "0.14.0-standin"\n');
const git = (...args: string[]) =>
  new Deno.Command("git", {
    args: ["-C", hermes, "-c", "user.name=t", "-c", "user.email=t@t", ...args],
    stdout: "null",
    stderr: "null",
  }).output();
const gitReady = (await git("init", "-q")).success && (await git("add", ".")).success &&
  (await git("commit", "-q", "-m", "stand-in")).success;

const ADAPTER = `exec:python3 ${join(ROOT, "adapters", "hermes_collect.py")} --hermes ${hermes}`;
/** The collecting program's environment (for its child only: never `Deno.env`, shared by parallel test files). */
const ENV: Record<string, string> = {
  LLM_BASE_URL: "http://127.0.0.1:9/v1",
  STANDIN_PAGE_LINES: "3",
  SECRET_NOT_PASSED: "sk-never-reaches-the-agent",
};

async function collect(out: string, report: string, extra: string[] = [], env: Record<string, string> = {}) {
  return await runCli([
    "hotpot",
    "collect",
    "--questions",
    "2",
    "--agent",
    ADAPTER,
    "--agent-env",
    "LLM_BASE_URL",
    "--agent-env",
    "STANDIN_PAGE_LINES",
    "--agent-env",
    "STANDIN_REPORT",
    ...extra,
    "--output",
    out,
    "-q",
  ], { ...ENV, STANDIN_REPORT: report, ...env });
}

async function blobText(run: string, hash: string): Promise<string> {
  return await Deno.readTextFile(join(run, "objects", "sha256", hash.slice(0, 2), hash.slice(2)));
}

async function reportLines(path: string): Promise<{ home: string; env: string[] }[]> {
  return (await Deno.readTextFile(path)).trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("a noisy Hermes paging its reads collects valid trajectories; stdout is the session only; homes are thrown away", async () => {
  const out = join(dir, "paged");
  const report = join(dir, "paged-report.jsonl");
  const result = await collect(out, report);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const corpus = CorpusSchema.parse(JSON.parse(await Deno.readTextFile(join(out, "corpus.json"))));
  for (const q of corpus.questions) {
    assert.equal(q.valid, true, q.reason);
    const offsets = q.trajectory.flatMap((m) => m.tool_calls ?? []).map((c) =>
      JSON.parse(c.function.arguments)
    );
    assert.ok(offsets.some((args) => args.offset === 4), "the files were read in 3-line pages");
  }
  const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
  assert.deepEqual(manifest.protocol.agent_env, ["LLM_BASE_URL", "STANDIN_PAGE_LINES", "STANDIN_REPORT"]);
  for (const node of manifest.nodes.filter((n: { stage: string }) => n.stage === "hotpot-collect")) {
    const stored = JSON.parse(await blobText(out, node.outputs.session_text));
    const session = typeof stored === "string" ? JSON.parse(stored) : stored;
    assert.equal(session.agent.name, "hermes-agent");
    assert.equal(session.agent.version, "0.14.0-standin");
    if (gitReady) {
      assert.match(session.agent.commit, /^[0-9a-f]{40}$/);
      assert.equal(session.agent.dirty, false);
    }
    assert.equal(session.completed, true);
  }
  const seen = await reportLines(report);
  assert.equal(seen.length, 2);
  assert.notEqual(seen[0].home, seen[1].home, "a fresh home per question");
  for (const { home, env } of seen) {
    await assert.rejects(Deno.stat(home), Deno.errors.NotFound, `${home} was removed`);
    assert.ok(
      !env.includes("SECRET_NOT_PASSED"),
      "a variable not passed by --agent-env never reaches the agent",
    );
    const unexpected = env.filter((name) =>
      !["PATH", "HOME", "LANG", "TMPDIR", "HERMES_HOME", "COMPACTION_BENCH_CALL", "LLM_BASE_URL"].includes(
        name,
      ) &&
      !name.startsWith("STANDIN_") && !name.startsWith("LC_") &&
      // what a python3 launcher (pyenv's shim, a shell) adds on its way
      !/^(?:_?PYENV|SHLVL$|PWD$|_$)/.test(name)
    );
    assert.deepEqual(unexpected, [], "the agent sees the exec: environment plus --agent-env only");
  }
  const verified = await runCli(["verify", out]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
});

Deno.test("an agent that did not finish exits non-zero; its question is invalid with Hermes' reason", async () => {
  const out = join(dir, "unfinished");
  const result = await collect(out, join(dir, "unfinished-report.jsonl"), ["--agent-env", "STANDIN_FAIL"], {
    STANDIN_FAIL: "1",
  });
  assert.equal(result.code, 1, result.stderr + result.stdout);
  assert.match(result.stdout, /agent: exited with code 1: .*the agent did not finish: Connection error\./s);
});

Deno.test("--agent-env refuses a name that is not set, before anything is written", async () => {
  const out = join(dir, "unset");
  const result = await runCli([
    "hotpot",
    "collect",
    "--agent",
    ADAPTER,
    "--agent-env",
    "NO_SUCH_VAR_H1",
    "--output",
    out,
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--agent-env NO_SUCH_VAR_H1: the variable is not set/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});
