/**
 * The answering model is a recorded fact, end to end through the real CLI: a server that answers under another
 * model name than the one asked for is named in aggregate.json, REPORT.md, report.html and `compare`; a run whose
 * answering model changed mid-run says so at the top of REPORT.md and report.html. The server is the reference
 * model behind a loopback proxy that rewrites the `model` of its chat replies.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { testCounter } from "./models_support.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";
import { DEFAULT_CHAT_MODEL } from "../src/models/chat_client.ts";
import { nodeKey } from "../src/store/manifest.ts";
import { copyRun } from "./helpers/reseal.ts";
import { forgeRun } from "./helpers/reseal_nodes.ts";

const counter = await testCounter();

/** A proxy to `target` whose n-th chat reply (from 1) answers as `modelOf(n)`. */
async function renamingProxy(
  target: string,
  modelOf: (n: number) => string,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  let chatReplies = 0;
  const server = createServer((request, response) => {
    const chunks: Uint8Array[] = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", async () => {
      const upstream = await fetch(`${target}${request.url!.replace(/^\/v1/, "")}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: String(request.headers.authorization) },
        body: chunks.map((c) => new TextDecoder().decode(c)).join(""),
      });
      let text = await upstream.text();
      if (upstream.ok && request.url!.endsWith("/chat/completions")) {
        const json = JSON.parse(text);
        json.model = modelOf(++chatReplies);
        json.system_fingerprint = "fp_test_1";
        text = JSON.stringify(json);
      }
      response.writeHead(upstream.status, { "content-type": "application/json" });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function liveSweep(dir: string, name: string, chatUrl: string, decisionUrl: string) {
  const env = join(dir, `${name}.env`);
  await Deno.writeTextFile(
    env,
    `LLM_API_KEY=sk-model-identity-0001\nLLM_BASE_URL=${chatUrl}\n` +
      `DECISION_MODEL_API_KEY=sk-model-identity-0002\nDECISION_MODEL_BASE_URL=${decisionUrl}\n`,
  );
  const out = join(dir, name);
  const result = await runCli([
    "sweep",
    "run",
    "--live",
    "-q",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--env-file",
    env,
    "--output",
    out,
  ]);
  assert.equal(result.code, 0, result.stderr);
  return { out, stdout: result.stdout };
}

/** The part of a report before its results: its first screen. */
function firstScreen(text: string, marker: string): string {
  const at = text.indexOf(marker);
  assert.ok(at > 0, `no ${marker}`);
  return text.slice(0, at);
}

Deno.test("the answering models are named beside the requested ones; a mid-run change is said on the first screen; compare names both", async () => {
  const dir = await Deno.makeTempDir({ prefix: "live_model_identity_" });
  const server = await startReferenceServer({ counter });
  const steady = await renamingProxy(server.baseUrl, () => "served-model-a");
  const rolling = await renamingProxy(
    server.baseUrl,
    (n) => n % 2 === 1 ? "served-model-a" : "served-model-b",
  );
  try {
    const { out: one, stdout: steadyOut } = await liveSweep(dir, "steady", steady.baseUrl, server.baseUrl);
    const { out: two, stdout: rollingOut } = await liveSweep(dir, "rolling", rolling.baseUrl, server.baseUrl);
    // The terminal's first lines say so too.
    assert.ok(!steadyOut.includes("changed mid-run"));
    assert.match(rollingOut.split("\n")[0], /^note: The answering model changed mid-run: chat answered as/);

    // The steady run: asked for the default chat model, answered as served-model-a; no change notice.
    const report = await Deno.readTextFile(join(one, "REPORT.md"));
    assert.match(report, new RegExp(`chat \`${DEFAULT_CHAT_MODEL}\` \\(answered by \`served-model-a\`\\)`));
    assert.match(report, /decision `jev-latest` \(answered by `compaction-bench-reference-jev-1`\)/);
    assert.ok(!report.includes("Answering model changed"));
    const html = await Deno.readTextFile(join(one, "report.html"));
    assert.match(html, /answered by <code>served-model-a<\/code>/);
    const aggregate = JSON.parse(await Deno.readTextFile(join(one, "aggregate.json")));
    const full = aggregate.find((a: { kind: string }) => a.kind === "full");
    assert.deepEqual(full.models, {
      chat: { answered: { "served-model-a": 1 }, requested: DEFAULT_CHAT_MODEL },
    });
    // Each call record names the answering model and its system_fingerprint.
    const records = [];
    for (const line of (await Deno.readTextFile(join(one, "journal.jsonl"))).trim().split("\n")) {
      const node = JSON.parse(line).node;
      if (node?.stage !== "sweep-answer") continue;
      for (const hash of node.requests) {
        records.push(JSON.parse(
          await Deno.readTextFile(join(one, "objects", "sha256", hash.slice(0, 2), hash.slice(2))),
        ));
      }
    }
    assert.ok(records.length > 0);
    for (const record of records) {
      assert.equal(record.model, "served-model-a");
      assert.equal(record.system_fingerprint, "fp_test_1");
    }

    // The rolling run: two models answered the chat calls; REPORT.md and report.html say so before the results.
    const rolled = await Deno.readTextFile(join(two, "REPORT.md"));
    assert.match(
      firstScreen(rolled, "## Results"),
      /Answering model changed.*chat answered as served-model-a, served-model-b/,
    );
    assert.match(
      firstScreen(await Deno.readTextFile(join(two, "report.html")), "<h2>Results"),
      /Answering model changed/,
    );

    // compare names each run's models and that they differ.
    const compared = await runCli(["compare", one, two]);
    assert.equal(compared.code, 0, compared.stderr);
    assert.match(compared.stdout, /A: chat `qwen3\.8-max` \(answered by `served-model-a`\)/);
    assert.match(
      compared.stdout,
      /B: chat `qwen3\.8-max` \(answered by `served-model-a`, `served-model-b`\)/,
    );
    assert.match(compared.stdout, /B: The answering model changed mid-run/);
    assert.match(compared.stdout, /answered by different models/);
  } finally {
    await steady.close();
    await rolling.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a forged answering model in an aggregate's params is named by verify --rederive; the honest run passes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "live_model_identity_forged_" });
  try {
    const run = join(dir, "run");
    const made = await runCli([
      "sweep",
      "run",
      "--reference",
      "-q",
      "--compressions",
      "1",
      "--answers",
      "1",
      "--output",
      run,
    ]);
    assert.equal(made.code, 0, made.stderr);
    const honest = await runCli(["verify", "--rederive", run]);
    assert.equal(honest.code, 0, honest.stdout + honest.stderr);
    const copy = join(dir, "forged");
    await copyRun(run, copy);
    await forgeRun(copy, {
      nodes: (nodes) => {
        for (const node of nodes) {
          if (node.stage !== "sweep-aggregate") continue;
          const params = node.params as { answering_models: Record<string, { chat: { answered: object } }> };
          params.answering_models.full.chat.answered = { "forged-model-9": 1 };
          node.key = nodeKey(node.stage, node.version, node.params, node.inputs);
        }
      },
    });
    const forged = await runCli(["verify", "--rederive", copy]);
    assert.notEqual(forged.code, 0);
    assert.match(
      forged.stdout + forged.stderr,
      /sweep-aggregate node .*output_not_from_response: answering_models of full \(chat\) \{"forged-model-9":1\} is not its call records' \{"compaction-bench-reference-chat-1\.1":1\}/,
    );
    // The independent auditor applies the same rule from docs/FORMAT.md alone.
    const audit = async (path: string) => {
      const out = await new Deno.Command("python3", {
        args: [join(ROOT, "scripts", "audit_run.py"), "--strict", path],
        stdout: "piped",
        stderr: "piped",
      }).output();
      return {
        code: out.code,
        text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
      };
    };
    assert.equal((await audit(run)).code, 0);
    const audited = await audit(copy);
    assert.notEqual(audited.code, 0);
    assert.match(
      audited.text,
      /output_not_from_response: node #\d+ aggregate .*answering_models of full \(chat\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
