/**
 * What the models said is bound to the hashed calls: each forgery of a sealed hotpot run that plain `verify`
 * cannot see (the journal re-chained, the manifest re-sealed) is named by `verify --rederive`, which replays
 * every provider node from its call records, and by `scripts/audit_run.py --strict`, which applies the parse
 * rule of docs/FORMAT.md:
 *
 * - an answer's output replaced by the gold answer, everything downstream dropped and the run resumed;
 * - usage ×10 on every node;
 * - (an invalid answer or summary flipped to ok: tests/hostile_provider.test.ts, whose run has them);
 * - the header's recorded options changed (`answers` 1 → 5) and re-sealed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { canonicalBytes } from "../src/store/canonical.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";
import { copyRun } from "./helpers/reseal.ts";
import { forgeRun, putBlob, readBlobJson } from "./helpers/reseal_nodes.ts";

const dir = await Deno.makeTempDir({ prefix: "verify_provider_tamper_" });
globalThis.addEventListener("unload", () => {
  new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
});

const collected = await runCli(["hotpot", "collect", "--questions", "2", "--output", join(dir, "c"), "-q"]);
assert.equal(collected.code, 0, collected.stderr);
const corpus = join(dir, "c", "corpus.json");
const run = join(dir, "run");
// A ceiling of 4,000 tokens puts Full over budget: its answers are invalid without a call.
const made = await runCli([
  "hotpot",
  "run",
  "--corpus",
  corpus,
  "--reference",
  "--compressions",
  "1",
  "--answers",
  "1",
  "--input-cap",
  "4000",
  "--output",
  run,
  "-q",
]);
assert.equal(made.code, 0, made.stderr);

async function audit(path: string): Promise<{ code: number; stdout: string }> {
  const out = await new Deno.Command("python3", {
    args: [join(ROOT, "scripts", "audit_run.py"), "--strict", path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
}

/** A forged copy that plain verify passes, and what --rederive and the auditor say. */
async function forged(name: string, forge: (copy: string) => Promise<void>) {
  const copy = join(dir, name);
  await copyRun(run, copy);
  await forge(copy);
  const plain = await runCli(["verify", copy]);
  assert.equal(plain.code, 0, `plain verify is fooled by the forgery: ${plain.stdout}`);
  const rederive = await runCli(["verify", "--rederive", copy]);
  assert.equal(rederive.code, 1, rederive.stdout);
  const audited = await audit(copy);
  assert.equal(audited.code, 1, audited.stdout);
  return { rederive: rederive.stdout, audit: audited.stdout };
}

Deno.test("the intact run re-derives with every provider node replayed, and passes the auditor", async () => {
  const result = await runCli(["verify", "--rederive", run]);
  assert.equal(result.code, 0, result.stdout);
  assert.match(result.stdout, /replayed [1-9]\d* provider node\(s\) from their records, 0 provider node/);
  const audited = await audit(run);
  assert.equal(audited.code, 0, audited.stdout);
});

Deno.test("an answer replaced by the gold answer, downstream dropped and resumed, is named", async () => {
  const gold = JSON.parse(await Deno.readTextFile(corpus)).gold as Record<string, { answer: string }>;
  let forgedKey = "";
  const { rederive, audit: audited } = await forged("gold", async (copy) => {
    const downstream = new Set([
      "hotpot-score",
      "hotpot-rows",
      "hotpot-aggregate",
      "hotpot-report",
      "published-json",
      "run-header",
    ]);
    await forgeRun(copy, {
      unseal: true,
      nodes: async (nodes) => {
        // Every valid answer becomes the gold answer, in the answer format the scorer reads.
        for (const node of nodes) {
          if (node.stage !== "hotpot-answer" || node.status !== "ok") continue;
          const stored = await readBlobJson(copy, node.outputs.answer) as { content: string };
          const question = /q=(\S+)/.exec(node.label)![1];
          const answer = gold[question]?.answer ?? Object.values(gold)[0].answer;
          stored.content = JSON.stringify({ answer, supporting_facts: [] });
          node.outputs.answer = await putBlob(copy, canonicalBytes(stored));
          forgedKey = node.key;
        }
        return nodes.filter((n) => !downstream.has(n.stage));
      },
    });
    const resumed = await runCli(["hotpot", "run", "--resume", copy, "-q"]);
    assert.equal(resumed.code, 0, resumed.stderr);
  });
  assert.match(
    rederive,
    new RegExp(`hotpot-answer node ${forgedKey} .*output_not_from_response: output answer`),
  );
  assert.match(
    audited,
    /output_not_from_response: node #\d+ answer .*: the answer output is not its record's reply/,
  );
});

Deno.test("usage ×10 on every node is named as a usage mismatch", async () => {
  const { rederive, audit: audited } = await forged("usage", (copy) =>
    forgeRun(copy, {
      nodes: (nodes) => {
        for (const n of nodes) {
          n.usage = {
            calls: n.usage.calls,
            input_tokens: n.usage.input_tokens * 10,
            output_tokens: n.usage.output_tokens * 10,
          };
        }
      },
    }));
  assert.match(
    rederive,
    /hotpot-answer node .*usage_mismatch: the node's usage .* is not the sum of its records'/,
  );
  assert.match(rederive, /hotpot-summary node .*usage_mismatch/);
  // The aggregate's compression usage no longer equals the nodes' it counts.
  assert.match(rederive, /hotpot-aggregate node .*usage_mismatch: compression_usage of \S+ .* is neither/);
  assert.match(audited, /usage_mismatch: node #\d+ aggregate .*: compression_usage of \S+ is neither/);
  assert.match(audited, /usage_mismatch: node #\d+ answer .*: usage .* is not the sum of its records'/);
});

Deno.test("header options changed (answers 1 -> 5) and re-sealed are named as a header mismatch", async () => {
  const { rederive, audit: audited } = await forged("header", (copy) =>
    forgeRun(copy, {
      header: (header) => {
        const invocation = header.invocation as { options: Record<string, unknown> };
        invocation.options.answers = 5;
      },
    }));
  assert.match(rederive, /header_mismatch: the header's invocation\.options differ/);
  assert.match(
    audited,
    /header_mismatch: header: invocation\.options differ from the run-header node's params/,
  );
});
