/**
 * Paired stats pair methods by their declared roles (the reference no ceiling binds, a method's declared
 * parts), not by literal method names: a newly declared combination is paired with its parts.
 */
import assert from "node:assert/strict";
import { registerMethod } from "../src/methods/registry.ts";
import { comparedPairs } from "../src/suites/hotpot/report/stats.ts";

Deno.test("the built-in methods and an engine pair as before: Full against each, Jev+Summary against its parts and the rest", () => {
  assert.deepEqual(comparedPairs(["full", "jev", "summary", "jev+summary", "truncate"]), [
    ["full", "jev"],
    ["full", "summary"],
    ["full", "jev+summary"],
    ["full", "truncate"],
    ["jev", "jev+summary"],
    ["summary", "jev+summary"],
    ["truncate", "jev+summary"],
  ]);
  assert.deepEqual(comparedPairs(["jev", "summary"]), [], "no reference, no combination: no pairs");
});

Deno.test("a method that declares its parts is paired with them, under any name", () => {
  registerMethod({
    kind: "units",
    name: "test-jev-plus",
    needs: ["ranking"],
    parts: ["jev"],
    ceilingBinds: true,
    params: {},
    evidence: () => ({ kept: [], summary: "" }),
  });
  assert.deepEqual(comparedPairs(["full", "jev", "summary", "test-jev-plus"]), [
    ["full", "jev"],
    ["full", "summary"],
    ["full", "test-jev-plus"],
    ["jev", "test-jev-plus"],
    ["summary", "test-jev-plus"],
  ]);
});
