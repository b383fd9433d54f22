/**
 * The Hugging Face `hotpot_qa/distractor` Parquet layout, read in slices of its row groups by ranged reads.
 * @module
 */
import type { AsyncBuffer, parquetMetadataAsync } from "hyparquet";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { inputError, statInputFile } from "../fs_input.ts";
import { type HotpotRecord, HotpotRecordSchema, parseField } from "./hotpot_record.ts";

/** One row as the Hugging Face Parquet layout stores it (struct of parallel lists). */
export const HfHotpotRowSchema = z.object({
  id: z.string().min(1),
  question: z.string(),
  answer: z.string(),
  type: z.enum(["bridge", "comparison"]),
  level: z.string(),
  supporting_facts: z.object({ title: z.array(z.string()), sent_id: z.array(z.number().int()) }),
  context: z.object({ title: z.array(z.string()), sentences: z.array(z.array(z.string())) }),
});

/** Converts one Hugging Face row into a record; unequal list lengths name the field. */
export function hotpotRecordFromHfRow(raw: unknown, file: string, index: number): HotpotRecord {
  const row = parseField(HfHotpotRowSchema, raw, `${file}: record ${index}`);
  const { supporting_facts: sf, context: ctx, ...head } = row;
  if (sf.title.length !== sf.sent_id.length) {
    throw new UsageError(
      `${file}: record ${index}: field supporting_facts: ${sf.title.length} titles but ${sf.sent_id.length} sent_ids`,
    );
  }
  if (ctx.title.length !== ctx.sentences.length) {
    throw new UsageError(
      `${file}: record ${index}: field context: ${ctx.title.length} titles but ${ctx.sentences.length} sentence lists`,
    );
  }
  const record = {
    ...head,
    supporting_facts: sf.title.map((title, i) => ({ title, sent_id: sf.sent_id[i] })),
    context: ctx.title.map((title, i) => ({ title, sentences: ctx.sentences[i] })),
  };
  return parseField(HotpotRecordSchema, record, `${file}: record ${index}`);
}

/** Rows decoded at once: a row group is decoded in slices of at most this many rows (best a whole group). */
export const PARQUET_DECODE_ROWS = 1000;
/** Records per batch yielded by {@link hotpotParquetBatches}. */
export const PARQUET_BATCH_ROWS = 100;

/** A Hugging Face layout Parquet file as validated records in batches, never held whole. */
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
  // Imported only when a Parquet file is read.
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
