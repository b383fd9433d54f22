/**
 * The frozen-run guards before anything is written: options that enter compression keys must equal the
 * frozen run's recorded protocol, and compression nodes that failed after provider calls refuse the frozen run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { Executor } from "../src/pipeline/executor.ts";
import { defineStage } from "../src/pipeline/stage.ts";
import { FrozenRun } from "../src/pipeline/frozen_run.ts";
import {
  assertFrozenProtocol,
  assertNoFailedCompression,
  FrozenMismatchError,
} from "../src/pipeline/frozen_check.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { testHeader } from "./helpers/header.ts";

async function frozenWithNodes(dir: string): Promise<FrozenRun> {
  const run = await RunDir.create(join(dir, "frozen"), testHeader(), {});
  const executor = new Executor(run);
  const record = {
    endpoint: "chat" as const,
    request: {},
    status: "failed" as const,
    error: "malformed body",
    attempts: 2,
    elapsed_ms: 1,
  };
  const stage = defineStage({
    name: "sweep-summary",
    version: 1,
    doc: "a test compression stage",
    params: z.object({ label: z.string() }),
    inputs: [],
    outputs: { summary: { schema: z.object({ ok: z.boolean() }), doc: "" } },
    provider: true,
    run: ({ env: { ok, calls } }: { env: { ok: boolean; calls: boolean } }) =>
      Promise.resolve({
        outputs: { summary: { ok } },
        requests: calls ? [record] : [],
        ...(ok ? {} : { status: "invalid" as const, reason: "summary failed: malformed body" }),
      }),
  });
  const node = (label: string, ok: boolean, calls: boolean) =>
    executor.runStage(stage, { label, params: { label }, inputs: {} }, { ok, calls });
  await node("summary gen=0", true, true);
  await node("summary gen=1", false, true);
  await node("summary gen=2", false, false);
  await run.finish();
  return await FrozenRun.open(run.path);
}

Deno.test("a frozen run whose compression nodes failed after provider calls is refused, naming them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const frozen = await frozenWithNodes(dir);
    assert.throws(
      () => assertNoFailedCompression(frozen, (n) => n.stage === "sweep-summary"),
      (e: Error) => {
        assert.ok(e instanceof FrozenMismatchError);
        assert.match(
          e.message,
          /1 summary\/ranking node\(s\) failed there: summary gen=1 \(summary failed: malformed body\)/,
        );
        assert.doesNotMatch(
          e.message,
          /gen=2/,
          "a node that failed without calls is recomputed, not refused",
        );
        return true;
      },
    );
    assertNoFailedCompression(frozen, (n) => n.stage === "sweep-rank");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("protocol options are compared exactly and every differing one is named with both values", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const frozen = await frozenWithNodes(dir);
    assertFrozenProtocol(frozen, [{ option: "--reserve", ours: 64, frozen: 64 }]);
    assert.throws(
      () =>
        assertFrozenProtocol(frozen, [
          { option: "--summary-allowance", ours: 3000, frozen: 3200 },
          { option: "--reserve", ours: 64, frozen: 64 },
          { option: "chat model (--model)", ours: "a", frozen: "b" },
        ]),
      (e: Error) => {
        assert.match(
          e.message,
          /--summary-allowance 3000 differs from the frozen run's 3200; chat model \(--model\) a differs from the frozen run's b\./,
        );
        assert.doesNotMatch(e.message, /--reserve/);
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
