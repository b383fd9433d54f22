/**
 * The stage catalogue in docs/FORMAT.md and the JSON Schemas under docs/schemas/stages/ are generated from the
 * stage declarations; this fails when a declaration changed and `scripts/gen_stage_docs.ts` was not re-run.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { catalogueMarkdown, staleFiles } from "../scripts/gen_stage_docs.ts";
import { STAGES } from "../src/suites/registry.ts";

Deno.test("the stage catalogue and the stage schemas are up to date with the declarations", async () => {
  const stale = await staleFiles();
  assert.deepEqual(stale, [], "run: deno run --allow-read --allow-write scripts/gen_stage_docs.ts");
});

Deno.test("the catalogue names every stage with its version, and a versioning policy", () => {
  const text = catalogueMarkdown();
  for (const def of STAGES) {
    assert.ok(text.includes(`### \`${def.name}\` (version ${def.version})`), def.name);
  }
  assert.match(text, /Versioning\. A stage's `version` enters its node key/);
});

Deno.test("every declared output schema converts to JSON Schema, and stage names are unique", () => {
  const names = STAGES.map((s) => s.name);
  assert.equal(new Set(names).size, names.length);
  for (const def of STAGES) {
    for (const [name, spec] of Object.entries(def.outputs)) {
      assert.doesNotThrow(
        () => z.toJSONSchema(spec.schema, { unrepresentable: "any" }),
        `${def.name}.${name}`,
      );
    }
  }
});
