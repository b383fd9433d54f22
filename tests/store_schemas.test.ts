import assert from "node:assert/strict";
import { join, relative } from "node:path";
import type { z } from "zod";
import type { CallRecord } from "../src/models/types.ts";
import { programIdentity } from "../src/program_identity.ts";
import { CallRecordSchema } from "../src/core/call_record.ts";
import { canonicalHash, sha256Hex } from "../src/store/hash.ts";
import { renderStoreSchemas, STORE_SCHEMA_DIR } from "../scripts/gen_schemas.ts";
import { ROOT } from "./helpers/spawn.ts";

Deno.test("the JSON Schemas under docs/schemas/store are the ones the zod schemas generate (run `deno task schemas`)", async () => {
  const wanted = renderStoreSchemas();
  const present = new Set<string>();
  for await (const entry of Deno.readDir(join(ROOT, STORE_SCHEMA_DIR))) {
    present.add(`${STORE_SCHEMA_DIR}/${entry.name}`);
  }
  assert.deepEqual([...present].sort(), [...wanted.keys()].sort(), "no schema missing, none left over");
  for (const [rel, text] of wanted) {
    assert.equal(
      await Deno.readTextFile(join(ROOT, rel)),
      text,
      `${rel} is stale: run \`deno task schemas\``,
    );
  }
});

Deno.test("the stored call record schema and the clients' CallRecord type describe the same record", () => {
  // Compile-time both ways: a field added to one and not the other fails `deno check`.
  const fromSchema = (record: z.infer<typeof CallRecordSchema>): CallRecord => record;
  const fromType = (record: CallRecord): z.infer<typeof CallRecordSchema> => record;
  const record: CallRecord = {
    endpoint: "chat",
    request: { messages: [] },
    status: "failed",
    error: "HTTP 500",
    attempts: 3,
    elapsed_ms: 12.5,
  };
  assert.deepEqual(CallRecordSchema.parse(fromType(fromSchema(record))), record);
  assert.equal(CallRecordSchema.safeParse({ ...record, endpoint: "other" }).success, false);
});

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await tsFiles(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

Deno.test("the program identity hashes every source file, main.ts and deno.lock", async () => {
  const files = [...await tsFiles(join(ROOT, "src")), join(ROOT, "main.ts"), join(ROOT, "deno.lock")];
  const entries: [string, string][] = [];
  for (const file of files) entries.push([relative(ROOT, file), sha256Hex(await Deno.readFile(file))]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  assert.ok(entries.some(([path]) => path === "deno.lock"));
  const identity = await programIdentity();
  assert.equal(identity.source_hash, canonicalHash(entries));
  const withoutLock = entries.filter(([path]) => path !== "deno.lock");
  assert.notEqual(identity.source_hash, canonicalHash(withoutLock), "deno.lock changes the identity");
});
