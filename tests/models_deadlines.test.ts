import assert from "node:assert/strict";
import { Deadlines } from "../src/models/deadlines.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

Deno.test("deadlines expire in the order set, each once and not before its time; cleared ones never", async () => {
  const deadlines = new Deadlines(60);
  const fired: { name: string; after: number }[] = [];
  const started = performance.now();
  const set = (name: string) => {
    const at = performance.now();
    return deadlines.set(() => fired.push({ name, after: performance.now() - at }));
  };
  set("a");
  const clearB = set("b");
  await sleep(20);
  set("c");
  clearB();
  clearB(); // clearing twice is harmless
  assert.equal(deadlines.pending, 2);
  await sleep(150);
  assert.deepEqual(fired.map((f) => f.name), ["a", "c"]);
  for (const f of fired) assert.ok(f.after >= 59, `${f.name} fired after ${f.after} ms`);
  assert.ok(performance.now() - started >= 80);
  assert.equal(deadlines.pending, 0);
});

Deno.test("a deadline cleared before its time leaves no timer behind (the test's sanitizer would fail)", async () => {
  const deadlines = new Deadlines(10_000);
  const clears = Array.from({ length: 100 }, () => deadlines.set(() => assert.fail("expired")));
  // Cleared out of order: the head goes last.
  for (const clear of clears.slice(1).reverse()) clear();
  assert.equal(deadlines.pending, 1);
  clears[0]();
  assert.equal(deadlines.pending, 0);
  await sleep(5);
});

Deno.test("a deadline set while others expire, or from an expiring one, gets its own full duration", async () => {
  const deadlines = new Deadlines(40);
  const waited: Record<string, number> = {};
  const set = (name: string, then?: () => void) => {
    const at = performance.now();
    deadlines.set(() => {
      waited[name] = performance.now() - at;
      then?.();
    });
  };
  set("first", () => set("from first"));
  await sleep(10);
  set("late");
  while (deadlines.pending > 0) await sleep(10);
  assert.deepEqual(Object.keys(waited).sort(), ["first", "from first", "late"]);
  for (const [name, ms] of Object.entries(waited)) assert.ok(ms >= 39, `${name} waited ${ms} ms`);
});
