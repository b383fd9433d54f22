/**
 * A hostile reply is that condition's failure, never the run's: against a provider that answers some chat
 * completions with a lone surrogate, an integer beyond 2^53 in usage or a 100 MB body, `hotpot run --live`
 * exits 0, each such call fails its node with the reason named (the body kept as its raw bytes, a huge one cut
 * off at the bound), and the run verifies, re-derives (every provider node replayed from its records) and
 * passes `scripts/audit_run.py --strict`. The memory figures are bench/hostile_memory.ts's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "./helpers/spawn.ts";
import { startHostileProvider } from "./helpers/hostile_provider.ts";
import { copyRun } from "./helpers/reseal.ts";
import { forgeRun } from "./helpers/reseal_nodes.ts";

const dir = await Deno.makeTempDir({ prefix: "hostile_provider_" });
globalThis.addEventListener("unload", () => {
  new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
});

const collected = await runCli(["hotpot", "collect", "--questions", "4", "--output", join(dir, "c"), "-q"]);
assert.equal(collected.code, 0, collected.stderr);

/** Runs the CLI with the hostile provider's endpoints as the live credentials. */
async function runLive(args: string[], urls: { chat: string; decision: string }) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", "main.ts", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: {
      NO_COLOR: "1",
      LLM_API_KEY: "hostile-test-key-0123456789",
      LLM_BASE_URL: urls.chat,
      DECISION_MODEL_API_KEY: "hostile-test-key-0123456789",
      DECISION_MODEL_BASE_URL: urls.decision,
    },
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

interface StoredNode {
  stage: string;
  status: string;
  reason?: string;
  requests: string[];
}

Deno.test("lone surrogates, huge integers and a 100 MB body fail their calls only; the run ends (exit 1, naming them) and verifies", async () => {
  const provider = await startHostileProvider();
  const run = join(dir, "run");
  try {
    const result = await runLive([
      "hotpot",
      "run",
      "--corpus",
      join(dir, "c", "corpus.json"),
      "--live",
      "--max-retries",
      "0",
      // Four questions at the default generations and answers: invalid contexts share their (null) messages
      // blob, and each answer's replay must still find its own context's reason.
      "--output",
      run,
      "-q",
    ], { chat: provider.chatBaseUrl, decision: provider.referenceBaseUrl });
    // Failed calls, not a failed run: it finishes, and says so (exit 1: conditions not measured).
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^FAILED: \d+ provider or engine call\(s\) failed after their retries/m);
    for (const mode of ["lone-surrogate", "huge-integer", "huge-body"] as const) {
      assert.ok(
        provider.sent[mode] > 0,
        `the provider sent a ${mode} reply (${JSON.stringify(provider.sent)})`,
      );
    }
  } finally {
    await provider.close();
  }
  const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  const reasons = (manifest.nodes as StoredNode[]).filter((n) => n.status === "invalid").map((n) =>
    n.reason ?? ""
  );
  assert.ok(
    reasons.some((r) => /not I-JSON at .*: string with a lone surrogate/.test(r)),
    reasons.join("\n"),
  );
  assert.ok(
    reasons.some((r) => /not I-JSON at .*prompt_tokens: integer 9007199254740992 beyond 2\^53/.test(r)),
  );
  assert.ok(
    reasons.some((r) => /response body over its 8388608-byte bound \(--max-response-bytes\)/.test(r)),
  );
  // The refused bodies are kept as their raw bytes; a cut-off one by its first 64 KiB.
  let sawRaw = false;
  for (const node of manifest.nodes as StoredNode[]) {
    for (const hash of node.requests) {
      const path = join(run, "objects", "sha256", hash.slice(0, 2), hash.slice(2));
      const info = await Deno.stat(path);
      assert.ok(info.size < 1_000_000, `a call record stays small (${info.size} bytes)`);
      const record = JSON.parse(await Deno.readTextFile(path));
      if (record.response_raw) {
        sawRaw = true;
        assert.equal(record.status, "failed");
        if (!record.response_raw.complete) assert.equal(record.response_raw.bytes, 8388609);
      }
    }
  }
  assert.ok(sawRaw);
  const verified = await runCli(["verify", "--rederive", run]);
  assert.equal(verified.code, 0, verified.stdout);
  assert.match(verified.stdout, /replayed \d+ provider node\(s\) from their records, 0 provider node/);
  const audit = await new Deno.Command("python3", {
    args: [join(ROOT, "scripts", "audit_run.py"), "--strict", run],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(audit.code, 0, new TextDecoder().decode(audit.stdout));
});

async function auditStrict(path: string): Promise<{ code: number; stdout: string }> {
  const out = await new Deno.Command("python3", {
    args: [join(ROOT, "scripts", "audit_run.py"), "--strict", path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
}

for (const stage of ["hotpot-answer", "hotpot-summary"]) {
  Deno.test(`a ${stage} node whose hostile call failed, flipped invalid -> ok and re-sealed, is named`, async () => {
    const copy = join(dir, `flip-${stage}`);
    await copyRun(join(dir, "run"), copy);
    let flipped = "";
    await forgeRun(copy, {
      nodes: (nodes) => {
        const node = nodes.find((n) => n.stage === stage && n.status === "invalid" && n.requests.length > 0);
        assert.ok(node, `the hostile run has an invalid ${stage} node with a call`);
        node.status = "ok";
        delete node.reason;
        flipped = node.key;
      },
    });
    const plain = await runCli(["verify", copy]);
    assert.equal(plain.code, 0, `plain verify is fooled by the flip: ${plain.stdout}`);
    const rederived = await runCli(["verify", "--rederive", copy]);
    assert.equal(rederived.code, 1, rederived.stdout);
    assert.match(
      rederived.stdout,
      new RegExp(`${stage} node ${flipped} .*status_mismatch: status differs: stored ok`),
    );
    const audited = await auditStrict(copy);
    assert.equal(audited.code, 1, audited.stdout);
    assert.match(
      audited.stdout,
      /status_mismatch: node #\d+ .*: the node says ok; its (status|summary) output says/,
    );
  });
}
