import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../src/errors.ts";
import { nodeKey } from "../src/store/manifest.ts";
import { planMerge, writeMerged } from "../src/store/merge.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { verifyRun } from "../src/store/verify.ts";
import { testHeader } from "./helpers/header.ts";

/** A finished shard run with one node per given output text (the node key depends on `name` only). */
async function shardRun(path: string, index: number, count: number, outputs: Record<string, string>) {
  const run = await RunDir.create(path, { ...testHeader(), shard: { index, count } }, {
    data: new Uint8Array([1]),
  });
  for (const [name, text] of Object.entries(outputs)) {
    const inputs = { data: run.header.sources.data };
    await run.recordNode({
      key: nodeKey("make", 1, { name }, inputs),
      label: `make ${name}`,
      stage: "make",
      version: 1,
      params: { name },
      inputs,
      outputs: { out: await run.store.putText(text) },
      requests: [],
      usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
      started: "2026-01-01T00:00:00.000Z",
      finished: "2026-01-01T00:00:00.000Z",
      status: "ok",
    });
  }
  await run.finish();
}

Deno.test("merging shards keeps each node key once, copies each blob once, and the merged run verifies", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    await shardRun(join(tmp, "a"), 1, 2, { x: "same", shared: "common" });
    await shardRun(join(tmp, "b"), 2, 2, { y: "same", shared: "common" });
    const plan = await planMerge([join(tmp, "b"), join(tmp, "a")]);
    assert.deepEqual(plan.shards.map((s) => s.shard.index), [1, 2]);
    assert.deepEqual(plan.nodes.map((n) => n.node.label), ["make x", "make shared", "make y"]);
    const run = await writeMerged(join(tmp, "m"), plan, ["merge"]);
    await run.finish();
    const report = await verifyRun(join(tmp, "m"));
    assert.deepEqual(report.problems, []);
    let blobs = 0;
    for await (const dir of Deno.readDir(join(tmp, "m", "objects", "sha256"))) {
      for await (const _ of Deno.readDir(join(tmp, "m", "objects", "sha256", dir.name))) blobs++;
    }
    assert.equal(blobs, 3, "source, 'same' and 'common', each once");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("merging refuses a key with different outputs in two shards and names the node", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    await shardRun(join(tmp, "a"), 1, 2, { shared: "one thing" });
    await shardRun(join(tmp, "b"), 2, 2, { shared: "another" });
    await assert.rejects(
      planMerge([join(tmp, "a"), join(tmp, "b")]),
      (error: Error) =>
        error instanceof UsageError && /same key but different outputs: make shared/.test(error.message),
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("merging refuses duplicate parts, gaps and different shard counts, naming them", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    await shardRun(join(tmp, "a"), 1, 3, { x: "1" });
    await shardRun(join(tmp, "a2"), 1, 3, { x: "1" });
    await shardRun(join(tmp, "c"), 3, 3, { z: "3" });
    await shardRun(join(tmp, "other"), 2, 2, { y: "2" });
    await assert.rejects(planMerge([join(tmp, "a"), join(tmp, "c")]), /missing shard\(s\) 2\/3/);
    await assert.rejects(
      planMerge([join(tmp, "a"), join(tmp, "a2"), join(tmp, "c")]),
      /duplicate shard 1\/3/,
    );
    await assert.rejects(planMerge([join(tmp, "a"), join(tmp, "other")]), /different shard counts/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
