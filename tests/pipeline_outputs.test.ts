import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { Executor } from "../src/pipeline/executor.ts";
import { defineStage } from "../src/pipeline/stage.ts";
import { rederiveRun, type StageRegistry } from "../src/pipeline/rederive.ts";
import { readManifest, RunDir } from "../src/store/run_dir.ts";
import { sha256Hex } from "../src/store/hash.ts";
import { testHeader } from "./helpers/header.ts";

const BIG = "é ünïcode line\n".repeat(1000);

/** A stage whose text outputs are given as bytes: `big` is not held, `small` is. */
const bytesStage = defineStage({
  name: "bytes-out",
  version: 1,
  doc: "text outputs given as their UTF-8 bytes",
  params: z.object({ n: z.number().int(), order: z.object({ b: z.number(), a: z.number() }) }),
  inputs: [],
  outputs: {
    big: { schema: z.string(), kind: "text", held: false, doc: "a large text, not handed back" },
    small: { schema: z.string(), kind: "text", doc: "a text, handed back" },
    keys: { schema: z.array(z.string()), doc: "the params' object keys, as the body saw them" },
  },
  provider: false,
  run({ params }) {
    return Promise.resolve({
      outputs: {
        big: new TextEncoder().encode(`${params.n}:${BIG}`),
        small: new TextEncoder().encode(`small ${params.n}`),
        keys: Object.keys(params.order),
      },
    });
  },
});

const registry: StageRegistry = {
  stage: (name) => (name === bytesStage.name ? bytesStage : undefined),
  environment: () => Promise.resolve({}),
};

Deno.test("text outputs given as bytes are stored byte for byte; an output not held is null on every path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await RunDir.create(join(dir, "r"), testHeader());
    const executor = new Executor(run);
    const call = { label: "bytes 1", params: { n: 1, order: { b: 2, a: 1 } }, inputs: {} };
    const fresh = await executor.runStage(bytesStage, call, {});
    assert.equal(fresh.outputs.big, null, "not held");
    assert.equal(fresh.outputs.small, "small 1", "held: decoded");
    // The body saw the params as the journal records them (canonical: keys sorted), as --rederive will.
    assert.deepEqual(fresh.outputs.keys, ["a", "b"]);
    assert.equal(fresh.node.outputs.big, sha256Hex(new TextEncoder().encode(`1:${BIG}`)));
    assert.equal(await run.store.getText(fresh.node.outputs.big), `1:${BIG}`);
    const memo = await executor.runStage(bytesStage, call, {});
    assert.equal(memo.reused, "memo");
    assert.equal(memo.outputs.big, null, "not held on a memo hit either");
    assert.equal(memo.outputs.small, "small 1");
    await run.finish();
    const manifest = await readManifest(join(dir, "r"));
    assert.equal(manifest.nodes.length, 1);
    // Re-derived byte for byte from the recorded params.
    const report = await rederiveRun(join(dir, "r"), registry);
    assert.deepEqual(report.problems, []);
    assert.equal(report.rederived, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
