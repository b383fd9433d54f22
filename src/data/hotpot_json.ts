/**
 * The official HotpotQA JSON layout (`_id`, `supporting_facts: [[title, sent_id]]`, `context: [[title, […]]]`).
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { parseInputJson, readInputText } from "../fs_input.ts";
import { type HotpotRecord, HotpotRecordSchema, parseField } from "./hotpot_record.ts";

/** One record as the official JSON file spells it. */
export const OfficialHotpotRecordSchema = z.object({
  _id: z.string().min(1),
  question: z.string(),
  answer: z.string(),
  type: z.enum(["bridge", "comparison"]),
  level: z.string(),
  supporting_facts: z.array(z.tuple([z.string(), z.number().int()])),
  context: z.array(z.tuple([z.string(), z.array(z.string())])),
});
export type OfficialHotpotRecord = z.infer<typeof OfficialHotpotRecordSchema>;

/** Converts parsed official-layout JSON (an array) into validated records; errors name `file`. */
export function hotpotRecordsFromOfficialJson(data: unknown, file: string): HotpotRecord[] {
  if (!Array.isArray(data)) {
    throw new UsageError(`${file}: expected a JSON array of HotpotQA records, got ${typeof data}`);
  }
  return data.map((raw, index) => {
    const official = parseField(OfficialHotpotRecordSchema, raw, `${file}: record ${index}`);
    const { _id: id, supporting_facts, context, ...rest } = official;
    const record = {
      id,
      ...rest,
      supporting_facts: supporting_facts.map(([title, sent_id]) => ({ title, sent_id })),
      context: context.map(([title, sentences]) => ({ title, sentences })),
    };
    return parseField(HotpotRecordSchema, record, `${file}: record ${index}`);
  });
}

/** Reads an official-layout JSON file into validated records; `option` (e.g. `--gold`) is named in errors. */
export async function loadHotpotJson(path: string, option?: string): Promise<HotpotRecord[]> {
  const notJson = (detail: string) => `not valid JSON: ${detail}`;
  return hotpotRecordsFromOfficialJson(
    parseInputJson(await readInputText(path, option), path, undefined, { notJson }),
    path,
  );
}

/** Converts records to the official JSON layout. */
export function toOfficialHotpotJson(records: readonly HotpotRecord[]): OfficialHotpotRecord[] {
  return records.map((r) => ({
    _id: r.id,
    question: r.question,
    answer: r.answer,
    type: r.type,
    level: r.level,
    supporting_facts: r.supporting_facts.map((f) => [f.title, f.sent_id] as [string, number]),
    context: r.context.map((a) => [a.title, a.sentences] as [string, string[]]),
  }));
}
