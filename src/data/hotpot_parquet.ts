/**
 * The Hugging Face `hotpot_qa/distractor` Parquet layout: `id, question, answer, type, level: string;
 * supporting_facts struct<title: list<string>, sent_id: list<int32>>; context struct<title: list<string>,
 * sentences: list<list<string>>>`. Read with hyparquet (snappy, zstd, gzip, brotli via
 * hyparquet-compressors) and written with hyparquet-writer using an explicit schema so the nested columns
 * are real Parquet LIST groups, not JSON strings.
 *
 * @module
 */
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { ByteWriter, parquetWrite } from "hyparquet-writer";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { readInputFile } from "../fs_input.ts";
import { type HotpotRecord, HotpotRecordSchema, parseRecordField } from "./hotpot_record.ts";

/** One row as the Hugging Face Parquet layout stores it (struct of parallel lists). */
export const HfHotpotRowSchema = z.object({
  id: z.string().min(1),
  question: z.string(),
  answer: z.string(),
  type: z.enum(["bridge", "comparison"]),
  level: z.string(),
  supporting_facts: z.object({
    title: z.array(z.string()),
    sent_id: z.array(z.number().int()),
  }),
  context: z.object({
    title: z.array(z.string()),
    sentences: z.array(z.array(z.string())),
  }),
});
/** One row as the Hugging Face Parquet layout stores it (struct of parallel lists). */
export type HfHotpotRow = z.infer<typeof HfHotpotRowSchema>;

/** Converts one Hugging Face row (struct of lists) into a record; unequal list lengths name the field. */
export function hotpotRecordFromHfRow(raw: unknown, file: string, index: number): HotpotRecord {
  const row = parseRecordField(HfHotpotRowSchema, raw, file, index);
  const sf = row.supporting_facts;
  if (sf.title.length !== sf.sent_id.length) {
    throw new UsageError(
      `${file}: record ${index}: field supporting_facts: ${sf.title.length} titles but ${sf.sent_id.length} sent_ids`,
    );
  }
  const ctx = row.context;
  if (ctx.title.length !== ctx.sentences.length) {
    throw new UsageError(
      `${file}: record ${index}: field context: ${ctx.title.length} titles but ${ctx.sentences.length} sentence lists`,
    );
  }
  return parseRecordField(
    HotpotRecordSchema,
    {
      id: row.id,
      question: row.question,
      answer: row.answer,
      type: row.type,
      level: row.level,
      supporting_facts: sf.title.map((title, i) => ({ title, sent_id: sf.sent_id[i] })),
      context: ctx.title.map((title, i) => ({ title, sentences: ctx.sentences[i] })),
    },
    file,
    index,
  );
}

/** Reads a Hugging Face layout Parquet file into validated records; `option` is named in errors. */
export async function loadHotpotParquet(path: string, option?: string): Promise<HotpotRecord[]> {
  const bytes = await readInputFile(path, option);
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let rows: Record<string, unknown>[];
  try {
    const metadata = parquetMetadata(file);
    rows = await parquetReadObjects({ file, metadata, compressors, utf8: true });
  } catch (error) {
    if (error instanceof Error && !(error instanceof UsageError)) {
      throw new UsageError(`${path}: not a readable Parquet file: ${error.message}`, { cause: error });
    }
    throw error;
  }
  return rows.map((row, index) => hotpotRecordFromHfRow(row, path, index));
}

/** A Parquet schema element as hyparquet-writer takes it (its own hyparquet version's type). */
type SchemaElement = NonNullable<Parameters<typeof parquetWrite>[0]["schema"]>[number];

/** An optional UTF-8 string leaf. */
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

/** Encodes records as a Hugging Face layout Parquet file (snappy) and returns its bytes. */
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
