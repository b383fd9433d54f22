/**
 * Generates the JSON Schemas of the run store's records (docs/schemas/store/*.schema.json) from their zod
 * schemas with zod 4's `z.toJSONSchema`. tests/store_schemas.test.ts fails when the files are stale; run
 * `deno task schemas` after changing a store record.
 *
 * Usage: `deno run --allow-read --allow-write scripts/gen_schemas.ts`
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { CallRecordSchema } from "../src/core/call_record.ts";
import { JournalEntrySchema } from "../src/store/journal.ts";
import { ManifestSchema, NodeSchema, RUN_FORMAT, RunHeaderSchema } from "../src/store/manifest.ts";

/** Where the store schemas live, relative to the project root. */
export const STORE_SCHEMA_DIR = "docs/schemas/store";

/** Each store record: file stem, title and zod schema. */
const RECORDS: [string, string, z.ZodType][] = [
  [
    "run_header",
    "Run header (the journal's first line's `header`, and the head of manifest.json)",
    RunHeaderSchema,
  ],
  ["node", "Node: one stage execution in the DAG", NodeSchema],
  ["journal_line", "One line of journal.jsonl (canonical JSON)", JournalEntrySchema],
  ["manifest", "manifest.json: the sealed run", ManifestSchema],
  [
    "call_record",
    "Call record: one provider exchange, a canonical JSON blob listed in a node's requests",
    CallRecordSchema,
  ],
];

/** The schema files' text by path relative to the project root. */
export function renderStoreSchemas(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [stem, title, schema] of RECORDS) {
    const json = z.toJSONSchema(schema) as Record<string, unknown>;
    const { $schema, ...rest } = json;
    const document = {
      $schema,
      $id: `${RUN_FORMAT}/${stem}.schema.json`,
      title,
      description:
        `Generated from the zod schema by scripts/gen_schemas.ts for format ${RUN_FORMAT}; see docs/FORMAT.md.`,
      ...rest,
    };
    out.set(`${STORE_SCHEMA_DIR}/${stem}.schema.json`, JSON.stringify(document, null, 2) + "\n");
  }
  return out;
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../", import.meta.url));
  await Deno.mkdir(join(root, STORE_SCHEMA_DIR), { recursive: true });
  const wanted = renderStoreSchemas();
  for await (const entry of Deno.readDir(join(root, STORE_SCHEMA_DIR))) {
    const rel = `${STORE_SCHEMA_DIR}/${entry.name}`;
    if (!wanted.has(rel)) await Deno.remove(join(root, rel));
  }
  for (const [rel, text] of wanted) await Deno.writeTextFile(join(root, rel), text);
  console.log(`wrote ${wanted.size} schemas to ${STORE_SCHEMA_DIR}/`);
}
