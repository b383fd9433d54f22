import assert from "node:assert/strict";
import { concurrencyLimit, endpointLimit } from "../src/models/endpoint_limit.ts";
import { currentRequestIdentity, withRequestIdentity } from "../src/models/request_identity.ts";

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

Deno.test("at most `concurrency` calls run at once; the others start in arrival order as slots free", async () => {
  const limit = concurrencyLimit(2);
  const gates = Array.from({ length: 5 }, () => deferred());
  const started: number[] = [];
  let inFlight = 0;
  let most = 0;
  const results = gates.map((gate, i) =>
    limit(async () => {
      started.push(i);
      most = Math.max(most, ++inFlight);
      await gate.promise;
      inFlight--;
      return i * 10;
    })
  );
  await tick();
  assert.deepEqual(started, [0, 1]);
  assert.equal(limit.activeCount, 2);
  assert.equal(limit.pendingCount, 3);
  gates[1].resolve();
  await tick();
  assert.deepEqual(started, [0, 1, 2]);
  gates[0].resolve();
  gates[2].resolve();
  await tick();
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  gates[3].resolve();
  gates[4].resolve();
  assert.deepEqual(await Promise.all(results), [0, 10, 20, 30, 40]);
  assert.equal(most, 2);
  assert.equal(limit.activeCount, 0);
  assert.equal(limit.pendingCount, 0);
});

Deno.test("a call that fails or throws at once frees its slot and rejects with its error", async () => {
  const limit = concurrencyLimit(1);
  const failing = limit(() => Promise.reject(new Error("boom")));
  const throwing = limit(() => {
    throw new TypeError("sync");
  });
  const after = limit(() => "next");
  await assert.rejects(failing, /boom/);
  await assert.rejects(throwing, TypeError);
  assert.equal(await after, "next");
  assert.equal(limit.activeCount, 0);
});

Deno.test("a waiting call runs in the asynchronous context of the stage that made it", async () => {
  const limit = concurrencyLimit(1);
  const gate = deferred();
  const first = withRequestIdentity("node-a", () =>
    limit(async () => {
      await gate.promise;
      return currentRequestIdentity();
    }));
  const queued = ["node-b", "node-c"].map((id) =>
    withRequestIdentity(id, () => limit(() => Promise.resolve(currentRequestIdentity())))
  );
  await tick();
  assert.equal(limit.pendingCount, 2);
  gate.resolve();
  assert.deepEqual(await Promise.all([first, ...queued]), ["node-a", "node-b", "node-c"]);
});

Deno.test("raising the limit starts waiting calls at once; lowering it lets calls in flight finish first", async () => {
  const limit = concurrencyLimit(1);
  const gates = Array.from({ length: 4 }, () => deferred());
  const started: number[] = [];
  const runs = gates.map((gate, i) =>
    limit(async () => {
      started.push(i);
      await gate.promise;
    })
  );
  await tick();
  assert.deepEqual(started, [0]);
  limit.concurrency = 3;
  await tick();
  assert.deepEqual(started, [0, 1, 2]);
  limit.concurrency = 1;
  gates[0].resolve();
  gates[1].resolve();
  await tick();
  assert.deepEqual(started, [0, 1, 2], "two calls left, still one over the lowered limit: none starts");
  gates[2].resolve();
  await tick();
  assert.deepEqual(started, [0, 1, 2, 3]);
  gates[3].resolve();
  await Promise.all(runs);
  assert.throws(() => (limit.concurrency = 0), RangeError);
});

Deno.test("clients of one base URL share one limiter (trailing slashes ignored); the latest setting holds", () => {
  const a = endpointLimit("http://127.0.0.1:1/limit-test/", 3);
  const b = endpointLimit("http://127.0.0.1:1/limit-test", 5);
  assert.equal(a, b);
  assert.equal(a.concurrency, 5);
  assert.throws(() => endpointLimit("http://127.0.0.1:1/limit-test", 1.5), /positive integer/);
});
