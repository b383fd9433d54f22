/**
 * No test asserts a wall-clock threshold (a measured time below a number): on a loaded machine it fails for no fault of the
 * code, and passes on a fast one for no merit. Speed is measured in bench/ and reported. The same pattern as the
 * first-day acceptance check's grep, over every file in tests/.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./helpers/spawn.ts";

const THRESHOLD = /(elapsed|latency|duration|took|wall|_ms\b)[^ ;,]{0,40}\s*<=?\s*[0-9][0-9_]{2,}/;

async function* files(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* files(path);
    else if (entry.isFile && /\.(ts|js|py|sh)$/.test(entry.name)) yield path;
  }
}

Deno.test("no test asserts a wall-clock threshold", async () => {
  const found: string[] = [];
  for await (const path of files(join(ROOT, "tests"))) {
    (await Deno.readTextFile(path)).split("\n").forEach((line, i) => {
      if (THRESHOLD.test(line)) found.push(`${path.slice(ROOT.length)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

Deno.test("the pattern finds the kind of assertion it is for", () => {
  // Written in two parts, so that this file does not hold the pattern it looks for.
  assert.ok(THRESHOLD.test("assert.ok(result.latency_ms.cold! " + "< 4_000);"));
  assert.ok(THRESHOLD.test("assert.ok(elapsed " + "<= 2500)"));
  assert.equal(THRESHOLD.test("assert.ok(tokens < 4000)"), false);
});
