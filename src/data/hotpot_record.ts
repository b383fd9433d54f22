/**
 * The one in-memory shape of a HotpotQA distractor record, whichever file layout it came from, and the
 * validation that names the file, the record index and the field of a bad value.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";

/** One supporting fact: an article title and a 0-based sentence id within that article. */
export const SupportingFactSchema = z.object({
  title: z.string(),
  sent_id: z.number().int(),
});
/** One supporting fact: an article title and a 0-based sentence id within that article. */
export type SupportingFact = z.infer<typeof SupportingFactSchema>;

/** One context article: its title and its sentences in order (sentence id = array index). */
export const ArticleSchema = z.object({
  title: z.string(),
  sentences: z.array(z.string()),
});
/** One context article: its title and its sentences in order (sentence id = array index). */
export type Article = z.infer<typeof ArticleSchema>;

/** A HotpotQA distractor record, normalized from either the Hugging Face or the official layout. */
export const HotpotRecordSchema = z.object({
  id: z.string().min(1),
  question: z.string(),
  answer: z.string(),
  type: z.enum(["bridge", "comparison"]),
  level: z.string(),
  supporting_facts: z.array(SupportingFactSchema),
  context: z.array(ArticleSchema),
});
/** A HotpotQA distractor record, normalized from either the Hugging Face or the official layout. */
export type HotpotRecord = z.infer<typeof HotpotRecordSchema>;

/** Formats a zod issue path as `context[2].sentences[1]`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "(record)" : out;
}

/**
 * Validates `value` against `schema`; on failure throws a {@link UsageError} naming the file, the record
 * index and the field path reported by zod.
 */
export function parseRecordField<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  index: number,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new UsageError(
    `${file}: record ${index}: field ${formatIssuePath(issue.path)}: ${issue.message}`,
  );
}
