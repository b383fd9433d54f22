import assert from "node:assert/strict";
import { HeapBudget } from "../src/core/heap_budget.ts";

Deno.test("a heap over its budget is collected; then only after growing by the headroom; one under it is left alone", () => {
  let garbage: string[] | null = Array.from({ length: 200_000 }, (_, i) => `garbage ${i}`);
  assert.equal(garbage.length, 200_000);
  garbage = null;
  const before = Deno.memoryUsage().heapUsed;
  const tight = new HeapBudget(1, 512 * 1024 * 1024);
  tight.check();
  assert.equal(tight.collections, 1, "V8's collection is reachable through node:v8 and node:vm");
  assert.ok(Deno.memoryUsage().heapUsed < before, "the collection freed the garbage");
  tight.check();
  assert.equal(tight.collections, 1, "the heap has not grown by the headroom since: no second collection");
  const loose = new HeapBudget(Number.MAX_SAFE_INTEGER);
  loose.check();
  assert.equal(loose.collections, 0);
});
