/**
 * The Hugging Face `hotpot_qa/distractor` Parquet layout: `id, question, answer, type, level: string;
 * supporting_facts struct<title: list<string>, sent_id: list<int32>>; context struct<title: list<string>,
 * sentences: list<list<string>>>`. Read with hyparquet (snappy, zstd, gzip, brotli via
 * hyparquet-compressors); written by `hotpot_parquet_write.ts` (hyparquet-writer, loaded only where a file is
 * written).
 *
 * Reading is bounded in memory: {@link hotpotParquetBatches} reads the file through ranged reads (only the
 * footer and the column chunks of the rows asked for) and decodes it in slices of its row groups, so a caller
 * that keeps only some records (selection) never holds the whole file or every record.
 *
 * @module
 */
import type { AsyncBuffer, parquetMetadataAsync } from "hyparquet";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { inputError, statInputFile } from "../fs_input.ts";
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

/**
 * Rows decoded at once by {@link hotpotParquetBatches}: a row group is decoded in slices of at most this many
 * rows (a slice of a row group still decompresses the group's pages, so a slice is best a whole group; writers
 * commonly write groups of 1,000 rows or fewer).
 */
export const PARQUET_DECODE_ROWS = 1000;
/** Records per batch yielded by {@link hotpotParquetBatches} (converted and validated from a decoded slice). */
export const PARQUET_BATCH_ROWS = 100;

/** Reads a Hugging Face layout Parquet file into validated records; `option` is named in errors. */
export async function loadHotpotParquet(path: string, option?: string): Promise<HotpotRecord[]> {
  const records: HotpotRecord[] = [];
  for await (const batch of hotpotParquetBatches(path, option)) {
    for (const record of batch) records.push(record);
  }
  return records;
}

/**
 * Reads a Hugging Face layout Parquet file as validated records in file order, in batches of at most
 * `batchRows`. The file is read by byte ranges (never whole): each row group is decoded in slices of at most
 * `decodeRows` rows and each slice converted to records a batch at a time, so what is held at once is one
 * decoded slice and one batch. Errors are those of {@link loadHotpotParquet}: a path that is not a readable
 * regular file, a file that is not Parquet or is corrupt (`<path>: not a readable Parquet file: …`) and a bad
 * record (naming its index in the file) are {@link UsageError}s.
 */
export async function* hotpotParquetBatches(
  path: string,
  option?: string,
  { decodeRows = PARQUET_DECODE_ROWS, batchRows = PARQUET_BATCH_ROWS } = {},
): AsyncGenerator<HotpotRecord[]> {
  await statInputFile(path, option);
  const unreadable = (error: unknown): unknown => {
    const mapped = inputError(error, path, option);
    if (mapped !== error || !(error instanceof Error) || error instanceof UsageError) return mapped;
    return new UsageError(`${path}: not a readable Parquet file: ${error.message}`, { cause: error });
  };
  // The reader is imported when a Parquet file is read: a process that reads none does not load it.
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import("hyparquet");
  const { compressors } = await import("hyparquet-compressors");
  let file: AsyncBuffer;
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
  } catch (error) {
    throw unreadable(error);
  }
  let groupStart = 0;
  for (const group of metadata.row_groups) {
    const groupEnd = groupStart + Number(group.num_rows);
    for (let rowStart = groupStart; rowStart < groupEnd; rowStart += decodeRows) {
      const rowEnd = Math.min(groupEnd, rowStart + decodeRows);
      let rows: Record<string, unknown>[];
      try {
        rows = await parquetReadObjects({ file, metadata, compressors, utf8: true, rowStart, rowEnd });
      } catch (error) {
        throw unreadable(error);
      }
      if (rows.length !== rowEnd - rowStart) {
        throw new UsageError(
          `${path}: not a readable Parquet file: rows ${rowStart}..${rowEnd - 1} decoded ${rows.length} rows`,
        );
      }
      for (let at = 0; at < rows.length; at += batchRows) {
        const batch: HotpotRecord[] = [];
        for (let i = at; i < Math.min(rows.length, at + batchRows); i++) {
          batch.push(hotpotRecordFromHfRow(rows[i], path, rowStart + i));
          rows[i] = {}; // a converted row is garbage, even while the caller holds the batch
        }
        yield batch;
      }
    }
    groupStart = groupEnd;
  }
}
