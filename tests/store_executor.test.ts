import assert from "node:assert/strict";
import { join } from "node:path";
import { Executor, type StageCall } from "../src/pipeline/executor.ts";
import { FrozenRun } from "../src/pipeline/frozen_run.ts";
import { FrozenMismatchError } from "../src/pipeline/frozen_check.ts";
import { UsageError } from "../src/errors.ts";
import { readManifest, RunDir } from "../src/store/run_dir.ts";
import { verifyRun } from "../src/store/verify.ts";
import { testHeader } from "./helpers/header.ts";

const SOURCE = new TextEncoder().encode("shared source\n");

async function newRun(path: string): Promise<RunDir> {
  return await RunDir.create(path, testHeader(), { "source.txt": SOURCE });
}

function call(run: RunDir, i: number, extra: Partial<StageCall> = {}): StageCall {
  return {
    stage: "square",
    version: 1,
    label: `square ${i}`,
    params: { i },
    inputs: { source: run.header.sources["source.txt"] },
    ...extra,
  };
}

function counter() {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    fn: (i: number) => async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return {
        outputs: { value: { i, square: i * i } },
        requests: [{
          endpoint: "chat" as const,
          request: { i },
          response: { ok: true },
          status: "ok" as const,
          attempts: 1,
          elapsed_ms: 1,
          usage: { input_tokens: 3, output_tokens: 1 },
        }],
      };
    },
  };
}

Deno.test("the same key runs once: concurrent and later calls share the memoized node", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await newRun(join(dir, "run"));
    const executor = new Executor(run);
    const c = counter();
    const [a, b] = await Promise.all([
      executor.execute(call(run, 3), c.fn(3)),
      executor.execute(call(run, 3), c.fn(3)),
    ]);
    const d = await executor.execute(call(run, 3, { label: "another label, same key" }), c.fn(3));
    assert.equal(c.calls, 1);
    assert.equal(a.reused, null);
    assert.equal(b.reused, "memo");
    assert.equal(d.reused, "memo");
    assert.equal(b.node.key, a.node.key);
    assert.deepEqual(b.outputs, { value: { i: 3, square: 9 } });
    assert.deepEqual(executor.counts, {
      executed: 1,
      memo: 2,
      resume: 0,
      frozen: 0,
      skipped_check_only: 0,
      recomputed_failed: 0,
      retry_reused: 0,
      retried: 0,
    });
    assert.equal(run.nodeCount, 1, "one node journaled");
    assert.deepEqual(a.node.usage, { calls: 1, input_tokens: 3, output_tokens: 1 });
    await run.finish();
    assert.ok((await verifyRun(run.path)).ok);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a different params value is a different key and runs again", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await newRun(join(dir, "run"));
    const executor = new Executor(run);
    const c = counter();
    const a = await executor.execute(call(run, 1), c.fn(1));
    const b = await executor.execute(call(run, 2), c.fn(2));
    assert.equal(c.calls, 2);
    assert.notEqual(a.node.key, b.node.key);
    await run.abandon();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("frozen reuse records reused_from and copies blobs so verify passes on the new run alone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const frozenPath = join(dir, "frozen");
    const first = await newRun(frozenPath);
    const firstExecutor = new Executor(first);
    const original = await firstExecutor.execute(call(first, 4), counter().fn(4));
    await first.finish();

    const frozen = await FrozenRun.open(frozenPath);
    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen });
    const c = counter();
    const reused = await executor.execute(call(second, 4, { label: "square 4 again" }), c.fn(4));
    assert.equal(c.calls, 0, "the stage function is not called");
    assert.equal(reused.reused, "frozen");
    assert.deepEqual(reused.node.reused_from, {
      run: frozenPath,
      manifest: frozen.manifestHash,
      key: original.node.key,
    });
    assert.deepEqual(reused.node.outputs, original.node.outputs);
    assert.deepEqual(reused.node.requests, original.node.requests);
    assert.deepEqual(reused.outputs, original.outputs);
    assert.equal(executor.counts.frozen, 1);
    await second.finish();
    const recorded = (await readManifest(second.path)).nodes[0];
    assert.equal(recorded.label, "square 4 again", "the node is recorded under this run's label");

    // The frozen run disappears: the new run is self-contained.
    await Deno.remove(frozenPath, { recursive: true });
    const report = await verifyRun(second.path);
    assert.deepEqual(report.problems, []);
    assert.equal(report.ok, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stages with reuseFrozen false run afresh even when the frozen run has their key", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await newRun(join(dir, "frozen"));
    await new Executor(first).execute(call(first, 5), counter().fn(5));
    await first.finish();

    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen: await FrozenRun.open(first.path) });
    const c = counter();
    const result = await executor.execute(call(second, 5, { reuseFrozen: false }), c.fn(5));
    assert.equal(c.calls, 1);
    assert.equal(result.reused, null);
    assert.equal(result.node.reused_from, undefined);
    assert.equal(executor.counts.executed, 1);
    assert.equal(executor.counts.frozen, 0);
    await second.finish();
    assert.ok((await verifyRun(second.path)).ok);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("check-only marks provider stages without a frozen node invalid without calling them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await newRun(join(dir, "frozen"));
    await new Executor(first).execute(call(first, 1, { provider: true }), counter().fn(1));
    await first.finish();

    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen: await FrozenRun.open(first.path), checkOnly: true });
    const c = counter();
    const known = await executor.execute(call(second, 1, { provider: true }), c.fn(1));
    const unknown = await executor.execute(call(second, 2, { provider: true }), c.fn(2));
    const local = await executor.execute(call(second, 3, { provider: false }), c.fn(3));
    assert.equal(known.reused, "frozen");
    assert.equal(unknown.node.status, "invalid");
    assert.match(unknown.node.reason ?? "", /check-only/);
    assert.deepEqual(unknown.node.outputs, {});
    assert.deepEqual(unknown.node.requests, []);
    assert.equal(local.node.status, "ok", "a stage without provider calls still runs");
    assert.equal(c.calls, 1, "only the non-provider stage ran");
    assert.deepEqual(executor.counts, {
      executed: 1,
      memo: 0,
      resume: 0,
      frozen: 1,
      skipped_check_only: 1,
      recomputed_failed: 0,
      retry_reused: 0,
      retried: 0,
    });
    await second.finish();
    assert.ok((await verifyRun(second.path)).ok);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a resumed run's executor takes journaled nodes instead of running them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "run");
    const first = await newRun(path);
    await new Executor(first).execute(call(first, 6), counter().fn(6));
    await first.abandon();

    const again = await RunDir.resume(path);
    const executor = new Executor(again);
    const c = counter();
    const result = await executor.execute(call(again, 6), c.fn(6));
    assert.equal(c.calls, 0);
    assert.equal(result.reused, "resume");
    assert.deepEqual(result.outputs, { value: { i: 6, square: 36 } });
    await again.finish();
    assert.ok((await verifyRun(path)).ok);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a strict frozen run refuses a provider stage that is not in the frozen run, and every later stage", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await newRun(join(dir, "frozen"));
    await new Executor(first).execute(call(first, 1, { provider: true }), counter().fn(1));
    await first.finish();

    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen: await FrozenRun.open(first.path), frozenStrict: true });
    const c = counter();
    assert.equal((await executor.execute(call(second, 1, { provider: true }), c.fn(1))).reused, "frozen");
    // A pure stage may run; a provider stage whose key the frozen run lacks may not.
    assert.equal((await executor.execute(call(second, 7), c.fn(7))).reused, null);
    await assert.rejects(
      executor.execute(call(second, 2, { provider: true }), c.fn(2)),
      (e: Error) =>
        e instanceof FrozenMismatchError && e instanceof UsageError &&
        /square 2 is not in the frozen run/.test(e.message),
    );
    await assert.rejects(executor.execute(call(second, 8), c.fn(8)), FrozenMismatchError);
    assert.equal(c.calls, 1, "only the pure stage before the refusal ran");
    await executor.settled();
    await second.abandon();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a frozen run never reuses a failed node: refused after provider calls, recomputed without them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await newRun(join(dir, "frozen"));
    const firstExecutor = new Executor(first);
    const failing = (requests: boolean) => () =>
      Promise.resolve({
        outputs: { value: null },
        status: "invalid" as const,
        reason: "provider failed",
        requests: requests
          ? [{
            endpoint: "chat" as const,
            request: {},
            status: "failed" as const,
            error: "500",
            attempts: 2,
            elapsed_ms: 1,
          }]
          : [],
      });
    await firstExecutor.execute(call(first, 1, { provider: true }), failing(true));
    await firstExecutor.execute(call(first, 2, { provider: true }), failing(false));
    await first.finish();
    const frozen = await FrozenRun.open(first.path);

    // Not strict (check-only): the failed node is not reused; without calls it is recomputed.
    const loose = await newRun(join(dir, "loose"));
    const looseExecutor = new Executor(loose, { frozen });
    const c = counter();
    const recomputed = await looseExecutor.execute(call(loose, 2, { provider: true }), c.fn(2));
    assert.equal(recomputed.reused, null);
    assert.equal(recomputed.node.status, "ok");
    assert.equal(looseExecutor.counts.recomputed_failed, 1);
    await loose.abandon();

    const strict = await newRun(join(dir, "strict"));
    const executor = new Executor(strict, { frozen, frozenStrict: true });
    const d = counter();
    const again = await executor.execute(call(strict, 2, { provider: true }), d.fn(2));
    assert.equal(again.reused, null, "a node that failed without calls is recomputed");
    await assert.rejects(
      executor.execute(call(strict, 1, { provider: true }), d.fn(1)),
      /square 1 failed there \(provider failed\); a frozen run never reuses a failed node/,
    );
    assert.equal(d.calls, 1);
    await executor.settled();
    await strict.abandon();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
