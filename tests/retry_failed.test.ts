/**
 * `--retry-failed RUN`: a live hotpot run whose provider calls failed (a faulty reference server, no retries)
 * is redone as a new run that reuses every node RUN finished ok — answers included — and calls the provider
 * only for the failed nodes and what depends on them; its results.json equals a clean run's byte for byte, it
 * verifies, and its header names RUN. A retry whose key-changing option differs from RUN's is refused, naming
 * the option; so is one of a run with nothing failed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { parseFaultSpec } from "../src/models/reference/faults.ts";
import { readManifest } from "../src/store/run_dir.ts";
import { BlobStore } from "../src/store/blob_store.ts";
import { canonicalJson } from "../src/store/canonical.ts";
import type { Manifest } from "../src/store/manifest.ts";
import { testCounter } from "./models_support.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "retry_failed_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** The request bodies (canonical JSON) of the call records of `nodes` of the run at `path`, by call status. */
async function requestsOf(
  path: string,
  nodes: Manifest["nodes"],
): Promise<{ ok: string[]; failed: string[] }> {
  const store = new BlobStore(path);
  const out = { ok: [] as string[], failed: [] as string[] };
  for (const node of nodes) {
    for (const hash of node.requests) {
      const record = await store.getJson(hash) as { request: unknown; status: "ok" | "failed" };
      out[record.status === "ok" ? "ok" : "failed"].push(canonicalJson(record.request));
    }
  }
  return out;
}

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
# Flaky while the flag file exists: the first question it is asked for fails (exit 1), every other succeeds.
flag = sys.argv[1]
if os.path.exists(flag) and not os.path.exists(flag + ".failed"):
    open(flag + ".failed", "w").write(request["question"])
    sys.exit(1)
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
print(json.dumps({"session_id": "s", "model": "stand-in", "messages": messages}))
`;

async function live(baseUrl: string, args: string[], command = ["hotpot", "run"]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", "main.ts", ...command, "--live", "-q", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: {
      NO_COLOR: "1",
      LLM_API_KEY: "sk-test-retry-1",
      LLM_BASE_URL: baseUrl,
      DECISION_MODEL_API_KEY: "dm-test-retry-2",
      DECISION_MODEL_BASE_URL: baseUrl,
    },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("--retry-failed redoes only what failed and equals a clean run", async () => {
  const counter = await testCounter();
  const faulty = await startReferenceServer({ counter, faults: parseFaultSpec("500=0.3") });
  const healthy = await startReferenceServer({ counter });
  try {
    const collected = await runCli([
      "hotpot",
      "collect",
      "-q",
      "--questions",
      "4",
      "--output",
      join(dir, "c"),
    ]);
    assert.equal(collected.code, 0, collected.stderr);
    const corpus = ["--corpus", join(dir, "c", "corpus.json"), "--compressions", "1", "--answers", "1"];

    const bad = await live(faulty.baseUrl, [
      ...corpus,
      "--max-retries",
      "0",
      "--output",
      join(dir, "faulty"),
    ]);
    // The run finishes with failed conditions and says how to recover them (exit 1).
    assert.equal(bad.code, 1, bad.stderr);
    assert.ok(
      bad.stdout.includes(`--retry-failed ${join(dir, "faulty")} --output ${join(dir, "faulty")}-retried`),
    );
    const faultyManifest = await readManifest(join(dir, "faulty"));
    const failed = faultyManifest.nodes.filter((n) => n.status !== "ok");
    const failedAnswers = failed.filter((n) => n.stage === "hotpot-answer").length;
    assert.ok(failedAnswers > 0, "the faulty provider failed no answer (test set-up)");

    // Refusals first: nothing is written, and the option is named.
    const capped = await live(healthy.baseUrl, [
      ...corpus,
      "--input-cap",
      "3000",
      "--retry-failed",
      join(dir, "faulty"),
      "--output",
      join(dir, "x"),
    ]);
    assert.equal(capped.code, 2);
    assert.match(
      capped.stderr,
      /--retry-failed .*faulty: --input-cap 3000 differs from the retried run's 3600/,
    );
    await assert.rejects(Deno.stat(join(dir, "x")), Deno.errors.NotFound);
    const withFrozen = await live(healthy.baseUrl, [
      ...corpus,
      "--retry-failed",
      join(dir, "faulty"),
      "--frozen-run",
      join(dir, "faulty"),
      "--output",
      join(dir, "x"),
    ]);
    assert.equal(withFrozen.code, 2);
    assert.match(withFrozen.stderr, /--retry-failed and --frozen-run cannot be combined/);

    const before = healthy.stats().requests;
    const retried = await live(healthy.baseUrl, [
      ...corpus,
      "--retry-failed",
      join(dir, "faulty"),
      "--output",
      join(dir, "retried"),
    ]);
    assert.equal(retried.code, 0, retried.stderr);
    assert.match(
      retried.stdout,
      new RegExp(
        `retried ${failed.length} failed node\\(s\\) of ${
          join(dir, "faulty")
        }: \\d+ node\\(s\\) executed \\(\\d+ with the same key`,
      ),
    );
    const retryCalls = healthy.stats().requests - before;
    const clean = await live(healthy.baseUrl, [...corpus, "--output", join(dir, "clean")]);
    assert.equal(clean.code, 0, clean.stderr);
    const cleanCalls = healthy.stats().requests - before - retryCalls;

    assert.deepEqual(
      await Deno.readFile(join(dir, "retried", "results.json")),
      await Deno.readFile(join(dir, "clean", "results.json")),
    );
    assert.deepEqual(
      await Deno.readFile(join(dir, "retried", "aggregate.json")),
      await Deno.readFile(join(dir, "clean", "aggregate.json")),
    );
    // Calls only for what failed: the clean run's calls less those of every provider node RUN finished ok.
    const okCalls = faultyManifest.nodes.filter((n) => n.status === "ok").reduce(
      (s, n) => s + n.usage.calls,
      0,
    );
    assert.equal(retryCalls, cleanCalls - okCalls, `retry ${retryCalls}, clean ${cleanCalls}, ok ${okCalls}`);
    assert.ok(retryCalls < cleanCalls);

    // Call level: the calls the retry made are the records of the nodes it executed (not copied from RUN);
    // none re-sends a request RUN had an ok response to, and every request that failed in RUN was sent again.
    const retriedManifest = await readManifest(join(dir, "retried"));
    const priorByKey = new Map(faultyManifest.nodes.map((n) => [n.key, n]));
    const executed = retriedManifest.nodes.filter((n) => priorByKey.get(n.key)?.status !== "ok");
    const sent = await requestsOf(join(dir, "retried"), executed);
    assert.equal(sent.ok.length + sent.failed.length, retryCalls);
    assert.equal(sent.failed.length, 0);
    const inRun = await requestsOf(join(dir, "faulty"), faultyManifest.nodes);
    assert.ok(inRun.failed.length > 0 && inRun.ok.length > 0);
    const okBefore = new Set(inRun.ok);
    assert.deepEqual(
      sent.ok.filter((body) => okBefore.has(body)),
      [],
      "a request RUN had answered was re-sent",
    );
    const sentSet = new Set(sent.ok);
    assert.deepEqual(
      inRun.failed.filter((body) => !sentSet.has(body)),
      [],
      "a failed request was not re-sent",
    );
    // What RUN finished ok is that node in the retried run, published files' header binding included: the
    // run-header node binds no --output, --retry-failed or --max-retries, so its key is RUN's.
    const header = (m: Manifest) => m.nodes.find((n) => n.stage === "run-header");
    assert.deepEqual(header(retriedManifest)?.params, header(faultyManifest)?.params);

    const manifest = await readManifest(join(dir, "retried"));
    assert.deepEqual(manifest.retried_from, {
      run: join(dir, "faulty"),
      manifest: (await import("../src/store/hash.ts")).sha256Hex(
        await Deno.readFile(join(dir, "faulty", "manifest.json")),
      ),
      failed_nodes: failed.length,
    });
    // Every ok node of RUN that the retry needed is that node, answers included.
    const ours = new Map(manifest.nodes.map((n) => [n.key, n]));
    const okAnswers = faultyManifest.nodes.filter((n) => n.status === "ok" && n.stage === "hotpot-answer");
    assert.ok(okAnswers.length > 0);
    for (const node of okAnswers) assert.equal(ours.get(node.key)?.started, node.started, node.label);
    assert.ok(manifest.nodes.every((n) => n.status === "ok" || n.stage !== "hotpot-answer"));
    const verified = await runCli(["verify", join(dir, "retried")]);
    assert.equal(verified.code, 0, verified.stdout);

    const nothing = await live(healthy.baseUrl, [
      ...corpus,
      "--retry-failed",
      join(dir, "clean"),
      "--output",
      join(dir, "y"),
    ]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /every node of the run finished ok; there is nothing to retry/);
  } finally {
    await faulty.close();
    await healthy.close();
  }
});

Deno.test("hotpot collect --retry-failed collects again only the questions an outside agent failed", async () => {
  await Deno.writeTextFile(join(dir, "agent.py"), AGENT_PY);
  const flag = join(dir, "flaky");
  await Deno.writeTextFile(flag, "");
  const agent = ["--agent", `exec:python3 ${join(dir, "agent.py")} ${flag}`, "--questions", "3", "-q"];
  const first = await runCli(["hotpot", "collect", ...agent, "--output", join(dir, "collect-1")]);
  assert.equal(first.code, 0, first.stderr + first.stdout);
  assert.match(first.stdout, /collected 2\/3 valid trajectories/);
  await Deno.remove(flag);
  const retried = await runCli([
    "hotpot",
    "collect",
    ...agent,
    "--retry-failed",
    join(dir, "collect-1"),
    "--output",
    join(dir, "collect-2"),
  ]);
  assert.equal(retried.code, 0, retried.stderr + retried.stdout);
  assert.match(retried.stdout, /collected 3\/3 valid trajectories/);
  const clean = await runCli(["hotpot", "collect", ...agent, "--output", join(dir, "collect-3")]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.deepEqual(
    await Deno.readFile(join(dir, "collect-2", "corpus.json")),
    await Deno.readFile(join(dir, "collect-3", "corpus.json")),
  );
  const before = await readManifest(join(dir, "collect-1"));
  const after = await readManifest(join(dir, "collect-2"));
  assert.equal(after.retried_from?.failed_nodes, before.nodes.filter((n) => n.status !== "ok").length);
  const collected = (m: typeof before) =>
    m.nodes.filter((n) => n.stage === "hotpot-collect" && n.status === "ok");
  // The two questions collected well the first time are those nodes, not collected again.
  for (const node of collected(before)) {
    assert.equal(after.nodes.find((n) => n.key === node.key)?.started, node.started, node.label);
  }
  const differentSelection = await runCli([
    "hotpot",
    "collect",
    ...agent.slice(0, 2),
    "--questions",
    "4",
    "--retry-failed",
    join(dir, "collect-1"),
    "--output",
    join(dir, "collect-4"),
  ]);
  assert.equal(differentSelection.code, 2);
  assert.match(
    differentSelection.stderr,
    /--bridge 2 differs from the retried run's 2|--comparison 2 differs/,
  );
});

Deno.test("sweep run --retry-failed equals a clean sweep", async () => {
  const counter = await testCounter();
  const faulty = await startReferenceServer({ counter, faults: parseFaultSpec("500=0.3") });
  const healthy = await startReferenceServer({ counter });
  const sweep = ["sweep", "run"];
  try {
    const bad = await live(
      faulty.baseUrl,
      ["--max-retries", "0", "--output", join(dir, "sweep-faulty")],
      sweep,
    );
    assert.equal(bad.code, 1, bad.stderr);
    const failed = (await readManifest(join(dir, "sweep-faulty"))).nodes.filter((n) => n.status !== "ok");
    assert.ok(failed.length > 0, "the faulty provider failed nothing (test set-up)");
    const before = healthy.stats().requests;
    const retried = await live(
      healthy.baseUrl,
      ["--retry-failed", join(dir, "sweep-faulty"), "--output", join(dir, "sweep-retried")],
      sweep,
    );
    assert.equal(retried.code, 0, retried.stderr);
    const retryCalls = healthy.stats().requests - before;
    const clean = await live(healthy.baseUrl, ["--output", join(dir, "sweep-clean")], sweep);
    assert.equal(clean.code, 0, clean.stderr);
    assert.ok(retryCalls < healthy.stats().requests - before - retryCalls);
    for (const file of ["results.json", "aggregate.json"]) {
      assert.deepEqual(
        await Deno.readFile(join(dir, "sweep-retried", file)),
        await Deno.readFile(join(dir, "sweep-clean", file)),
        file,
      );
    }
    const refused = await live(
      healthy.baseUrl,
      ["--top-n", "3", "--retry-failed", join(dir, "sweep-faulty"), "--output", join(dir, "sweep-x")],
      sweep,
    );
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--top-n 3 differs from the retried run's 1,2,3,4,5/);
  } finally {
    await faulty.close();
    await healthy.close();
  }
});
