/**
 * Cost from recorded usage and given prices: hand-computed figures, "no price" (never an invented one) for
 * unpriced models, frozen nodes left out, no cost section without prices, and bad price input refused with
 * exit 2 before anything is written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PriceOptionSchema, priceTable, runCost } from "../src/analysis/cost.ts";
import type { Node } from "../src/store/manifest.ts";
import { runCli } from "./helpers/spawn.ts";

function node(
  stage: string,
  params: Record<string, unknown>,
  input: number,
  output: number,
  extra = {},
): Node {
  return {
    key: "k",
    label: stage,
    stage,
    version: 1,
    params,
    inputs: {},
    outputs: {},
    requests: [],
    usage: { calls: 1, input_tokens: input, output_tokens: output },
    started: "2026-01-01T00:00:00.000Z",
    finished: "2026-01-01T00:00:01.000Z",
    status: "ok",
    ...extra,
  } as Node;
}

Deno.test("cost is usage times the given prices per million tokens, per condition and phase", async () => {
  const nodes = [
    node("hotpot-rank", { decision_model: "d" }, 1_000_000, 0),
    node("hotpot-summary", { method: "summary", chat_model: "c" }, 2_000_000, 100_000),
    node("hotpot-answer", { method: "summary", chat_model: "c" }, 1_000_000, 10_000),
    node("hotpot-answer", { method: "full", chat_model: "c" }, 3_000_000, 10_000),
    // Reused from a frozen run: paid there, left out.
    node("hotpot-answer", { method: "full", chat_model: "c" }, 9_000_000, 0, {
      reused_from: { run: "x", manifest: "y", key: "z" },
    }),
  ];
  const cost = await runCost(nodes, { c: { input: 0.5, output: 2 }, d: { input: 0.1, output: 0 } }, [
    "full",
    "summary",
  ]);
  assert.deepEqual(cost.rows.map((r) => r.condition), ["full", "summary", "shared"]);
  const [full, summary, shared] = cost.rows;
  assert.equal(full.answering.usd, 1.5 + 0.02);
  assert.equal(full.compression.usd, 0);
  assert.equal(summary.compression.usd, 1 + 0.2);
  assert.equal(summary.answering.usd, 0.5 + 0.02);
  assert.equal(shared.compression.usd, 0.1);
  assert.ok(Math.abs(cost.total.usd! - (1.52 + 1.2 + 0.52 + 0.1)) < 1e-12);
  assert.deepEqual(cost.unpriced, []);
});

Deno.test("a model without a price makes its cells 'no price', never a guessed number", async () => {
  const cost = await runCost([
    node("sweep-summary", { chat_model: "c" }, 10, 10),
    node("sweep-answer", { kind: "S", chat_model: "c" }, 10, 10),
    node("sweep-rank", { decision_model: "unpriced" }, 10, 0),
  ], { c: { input: 1, output: 1 } });
  assert.deepEqual(cost.unpriced, ["unpriced"]);
  assert.equal(cost.rows.find((r) => r.condition === "shared")!.compression.usd, null);
  assert.equal(cost.rows.find((r) => r.condition === "S")!.answering.usd, 20 / 1e6);
  assert.equal(cost.total.usd, null);
});

Deno.test("price options parse MODEL=IN/OUT and merge over a prices file", () => {
  assert.deepEqual(PriceOptionSchema.parse("org/model-1=0.25/1.5"), {
    model: "org/model-1",
    input: 0.25,
    output: 1.5,
  });
  assert.equal(PriceOptionSchema.safeParse("model=abc").success, false);
  assert.equal(priceTable(undefined, undefined), null);
  assert.deepEqual(priceTable({ a: { input: 1, output: 1 } }, [{ model: "a", input: 2, output: 3 }]), {
    a: { input: 2, output: 3 },
  });
});

Deno.test("bad prices are refused with exit 2 and nothing is written", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "cost-cli-" });
  try {
    await Deno.writeTextFile(join(tmp, "prices.json"), JSON.stringify({ m: { input: -1, output: 1 } }));
    const corpus = join(tmp, "missing-corpus.json");
    const badFile = await runCli([
      "sweep",
      "run",
      "--reference",
      "--prices",
      join(tmp, "prices.json"),
      "--output",
      join(tmp, "out"),
    ]);
    assert.equal(badFile.code, 2);
    assert.match(badFile.stderr, /--prices .*prices\.json: m\.input: /);
    const badOption = await runCli(["hotpot", "run", "--reference", "--corpus", corpus, "--price", "m=1"]);
    assert.equal(badOption.code, 2);
    assert.match(badOption.stderr, /--price.*expected MODEL=IN\/OUT/);
    assert.deepEqual([...Deno.readDirSync(tmp)].map((e) => e.name), ["prices.json"]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a sweep run with prices reports its cost from the recorded usage; without prices, no cost", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "cost-run-" });
  try {
    const small = ["--compressions", "1", "--answers", "1", "--top-n", "1", "--bootstrap", "200", "-q"];
    const priced = await runCli([
      "sweep",
      "run",
      "--reference",
      "--price",
      "compaction-bench-reference-chat-1.1=1/2",
      "--price",
      "compaction-bench-reference-jev-1=0.5/0",
      "--output",
      join(tmp, "priced"),
      ...small,
    ]);
    assert.equal(priced.code, 0, priced.stderr);
    const plain = await runCli(["sweep", "run", "--reference", "--output", join(tmp, "plain"), ...small]);
    assert.equal(plain.code, 0, plain.stderr);
    const report = await Deno.readTextFile(join(tmp, "priced", "REPORT.md"));
    const manifest = JSON.parse(await Deno.readTextFile(join(tmp, "priced", "manifest.json")));
    let expected = 0;
    for (const n of manifest.nodes as Node[]) {
      const p = n.params as Record<string, string>;
      const price = p.chat_model
        ? { input: 1, output: 2 }
        : p.decision_model
        ? { input: 0.5, output: 0 }
        : null;
      if (price) {
        expected += (n.usage.input_tokens * price.input + n.usage.output_tokens * price.output) / 1e6;
      }
    }
    assert.ok(expected > 0);
    const total = /\| total \| n\/a \| [^|]+ \| n\/a \| [^|]+ \| \$([0-9.]+) \|/.exec(report);
    assert.ok(total, report.slice(report.indexOf("## Cost")));
    assert.equal(total[1], expected.toFixed(expected >= 1 ? 2 : 4));
    assert.equal((await Deno.readTextFile(join(tmp, "plain", "REPORT.md"))).includes("## Cost"), false);
    assert.equal(
      (await Deno.readTextFile(join(tmp, "plain", "report.html"))).includes("<h2>Cost</h2>"),
      false,
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
