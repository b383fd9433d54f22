/**
 * Writes the Hugging Face `hotpot_qa/distractor` Parquet layout (its own module: readers never load it).
 * @module
 */
import { ByteWriter, parquetWrite } from "hyparquet-writer";
import type { HotpotRecord } from "./hotpot_record.ts";

/** A Parquet schema element as hyparquet-writer takes it (its own hyparquet version's type). */
type SchemaElement = NonNullable<Parameters<typeof parquetWrite>[0]["schema"]>[number];

function optionalString(name: string): SchemaElement {
  return { name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" };
}

/** A LIST group of `element` in the standard three-level layout. */
function listOf(name: string, element: SchemaElement[]): SchemaElement[] {
  return [
    { name, repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    ...element,
  ];
}

/** The explicit Parquet schema of the Hugging Face HotpotQA distractor layout. */
export function hfHotpotParquetSchema(): SchemaElement[] {
  return [
    { name: "schema", repetition_type: "REQUIRED", num_children: 7 },
    optionalString("id"),
    optionalString("question"),
    optionalString("answer"),
    optionalString("type"),
    optionalString("level"),
    { name: "supporting_facts", repetition_type: "OPTIONAL", num_children: 2 },
    ...listOf("title", [optionalString("element")]),
    ...listOf("sent_id", [{ name: "element", type: "INT32", repetition_type: "OPTIONAL" }]),
    { name: "context", repetition_type: "OPTIONAL", num_children: 2 },
    ...listOf("title", [optionalString("element")]),
    ...listOf("sentences", listOf("element", [optionalString("element")])),
  ];
}

/** Encodes records as a Hugging Face layout Parquet file (snappy). */
export function hotpotParquetBytes(records: readonly HotpotRecord[], rowGroupSize = 1000): Uint8Array {
  const writer = new ByteWriter();
  parquetWrite({
    writer,
    schema: hfHotpotParquetSchema(),
    rowGroupSize,
    columnData: [
      { name: "id", data: records.map((r) => r.id) },
      { name: "question", data: records.map((r) => r.question) },
      { name: "answer", data: records.map((r) => r.answer) },
      { name: "type", data: records.map((r) => r.type) },
      { name: "level", data: records.map((r) => r.level) },
      {
        name: "supporting_facts",
        data: records.map((r) => ({
          title: r.supporting_facts.map((f) => f.title),
          sent_id: r.supporting_facts.map((f) => f.sent_id),
        })),
      },
      {
        name: "context",
        data: records.map((r) => ({
          title: r.context.map((a) => a.title),
          sentences: r.context.map((a) => a.sentences),
        })),
      },
    ],
  });
  return new Uint8Array(writer.getBuffer());
}

/** Writes records as a Hugging Face layout Parquet file. */
export async function writeHotpotParquet(records: readonly HotpotRecord[], path: string): Promise<void> {
  await Deno.writeFile(path, hotpotParquetBytes(records));
}
