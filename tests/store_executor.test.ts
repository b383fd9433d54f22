import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { Executor } from "../src/pipeline/executor.ts";
import { defineStage, type StageResult } from "../src/pipeline/stage.ts";
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

/** What a test stage's body does: the environment carries it, so each call may give its own. */
interface SquareEnv {
  fn: () => Promise<StageResult<{ value: { schema: z.ZodUnknown; doc: string } }>>;
}

function squareStage(reuseFrozen?: false) {
  return defineStage({
    name: "square",
    version: 1,
    doc: "a test stage",
    params: z.object({ i: z.number() }),
    inputs: ["source"],
    hashOnlyInputs: ["source"],
    outputs: { value: { schema: z.unknown(), doc: "the square" } },
    provider: false,
    ...(reuseFrozen === false ? { reuseFrozen } : {}),
    run: ({ env }: { env: SquareEnv }) => env.fn(),
  });
}

const SQUARE = squareStage();
const SQUARE_AFRESH = squareStage(false);

/** Runs the square stage of `i` over `run`'s source through the executor's one entry point. */
function square(
  executor: Executor,
  run: RunDir,
  i: number,
  fn: SquareEnv["fn"],
  extra: { label?: string; provider?: boolean; reuseFrozen?: false } = {},
) {
  return executor.runStage(extra.reuseFrozen === false ? SQUARE_AFRESH : SQUARE, {
    label: extra.label ?? `square ${i}`,
    params: { i },
    inputs: { source: run.header.sources["source.txt"] },
    ...(extra.provider !== undefined ? { provider: extra.provider } : {}),
  }, { fn });
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
      square(executor, run, 3, c.fn(3)),
      square(executor, run, 3, c.fn(3)),
    ]);
    const d = await square(executor, run, 3, c.fn(3), { label: "another label, same key" });
    assert.equal(c.calls, 1);
    assert.equal(a.reused, null);
    assert.equal(b.reused, "memo");
    assert.equal(d.reused, "memo");
    assert.equal(b.node.key, a.node.key);
    assert.deepEqual(JSON.parse(JSON.stringify(b.outputs)), { value: { i: 3, square: 9 } }); // read back: no prototypes
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
    const a = await square(executor, run, 1, c.fn(1));
    const b = await square(executor, run, 2, c.fn(2));
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
    const original = await square(firstExecutor, first, 4, counter().fn(4));
    await first.finish();

    const frozen = await FrozenRun.open(frozenPath);
    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen });
    const c = counter();
    const reused = await square(executor, second, 4, c.fn(4), { label: "square 4 again" });
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
    await square(new Executor(first), first, 5, counter().fn(5));
    await first.finish();

    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen: await FrozenRun.open(first.path) });
    const c = counter();
    const result = await square(executor, second, 5, c.fn(5), { reuseFrozen: false });
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
    await square(new Executor(first), first, 1, counter().fn(1), { provider: true });
    await first.finish();

    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen: await FrozenRun.open(first.path), checkOnly: true });
    const c = counter();
    const known = await square(executor, second, 1, c.fn(1), { provider: true });
    const unknown = await square(executor, second, 2, c.fn(2), { provider: true });
    const local = await square(executor, second, 3, c.fn(3), { provider: false });
    assert.equal(known.reused, "frozen");
    assert.equal(unknown.node.status, "invalid");
    assert.match(unknown.node.reason ?? "", /check-only/);
    assert.deepEqual(Object.keys(unknown.node.outputs), ["value"], "every declared output, stored as null");
    assert.equal(unknown.outputs.value, null);
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
    await square(new Executor(first), first, 6, counter().fn(6));
    await first.abandon();

    const again = await RunDir.resume(path);
    const executor = new Executor(again);
    const c = counter();
    const result = await square(executor, again, 6, c.fn(6));
    assert.equal(c.calls, 0);
    assert.equal(result.reused, "resume");
    assert.deepEqual(JSON.parse(JSON.stringify(result.outputs)), { value: { i: 6, square: 36 } });
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
    await square(new Executor(first), first, 1, counter().fn(1), { provider: true });
    await first.finish();

    const second = await newRun(join(dir, "second"));
    const executor = new Executor(second, { frozen: await FrozenRun.open(first.path), frozenStrict: true });
    const c = counter();
    assert.equal((await square(executor, second, 1, c.fn(1), { provider: true })).reused, "frozen");
    // A pure stage may run; a provider stage whose key the frozen run lacks may not.
    assert.equal((await square(executor, second, 7, c.fn(7))).reused, null);
    await assert.rejects(
      square(executor, second, 2, c.fn(2), { provider: true }),
      (e: Error) =>
        e instanceof FrozenMismatchError && e instanceof UsageError &&
        /square 2 is not in the frozen run/.test(e.message),
    );
    await assert.rejects(square(executor, second, 8, c.fn(8)), FrozenMismatchError);
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
    await square(firstExecutor, first, 1, failing(true), { provider: true });
    await square(firstExecutor, first, 2, failing(false), { provider: true });
    await first.finish();
    const frozen = await FrozenRun.open(first.path);

    // Not strict (check-only): the failed node is not reused; without calls it is recomputed.
    const loose = await newRun(join(dir, "loose"));
    const looseExecutor = new Executor(loose, { frozen });
    const c = counter();
    const recomputed = await square(looseExecutor, loose, 2, c.fn(2), { provider: true });
    assert.equal(recomputed.reused, null);
    assert.equal(recomputed.node.status, "ok");
    assert.equal(looseExecutor.counts.recomputed_failed, 1);
    await loose.abandon();

    const strict = await newRun(join(dir, "strict"));
    const executor = new Executor(strict, { frozen, frozenStrict: true });
    const d = counter();
    const again = await square(executor, strict, 2, d.fn(2), { provider: true });
    assert.equal(again.reused, null, "a node that failed without calls is recomputed");
    await assert.rejects(
      square(executor, strict, 1, d.fn(1), { provider: true }),
      /square 1 failed there \(provider failed\); a frozen run never reuses a failed node/,
    );
    assert.equal(d.calls, 1);
    await executor.settled();
    await strict.abandon();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
