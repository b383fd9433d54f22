/**
 * The stage output table `verify` reads (src/suites/stage_outputs.ts) equals what the stage registry declares.
 */
import assert from "node:assert/strict";
import { declaredOutputs, STAGE_OUTPUTS } from "../src/suites/stage_outputs.ts";
import { STAGES } from "../src/suites/registry.ts";

Deno.test("verify's stage output table equals every registered stage's declared outputs", () => {
  const declared = Object.fromEntries(STAGES.map((s) => [s.name, Object.keys(s.outputs)]));
  assert.deepEqual({ ...STAGE_OUTPUTS }, declared);
  for (const s of STAGES) assert.deepEqual(declaredOutputs(s.name), Object.keys(s.outputs));
  assert.deepEqual(declaredOutputs("no-such-stage"), undefined);
  assert.deepEqual(declaredOutputs("constructor"), undefined);
});
