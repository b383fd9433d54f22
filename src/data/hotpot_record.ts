/**
 * The one in-memory shape of a HotpotQA record, whichever file layout it came from, and its validation.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { formatPath } from "../tokens/config.ts";

/** Per-field bounds of a HotpotQA record (far above any real one); past one, it is refused naming the field. */
export const RECORD_LIMITS = {
  idChars: 256,
  textChars: 16_384,
  titleChars: 1_024,
  sentenceChars: 65_536,
  sentences: 10_000,
  articles: 1_000,
  facts: 1_000,
} as const;

/** One supporting fact: an article title and a 0-based sentence id within that article. */
export const SupportingFactSchema = z.object({ title: z.string(), sent_id: z.number().int() });
export type SupportingFact = z.infer<typeof SupportingFactSchema>;

/** One context article: its title and its sentences in order (sentence id = array index). */
export const ArticleSchema = z.object({ title: z.string(), sentences: z.array(z.string()) });
export type Article = z.infer<typeof ArticleSchema>;

/** A HotpotQA distractor record, normalized from either the Hugging Face or the official layout. */
export const HotpotRecordSchema = z.object({
  id: z.string().min(1).max(RECORD_LIMITS.idChars),
  question: z.string().max(RECORD_LIMITS.textChars),
  answer: z.string().max(RECORD_LIMITS.textChars),
  type: z.enum(["bridge", "comparison"]),
  level: z.string().max(RECORD_LIMITS.titleChars),
  supporting_facts: z.array(
    SupportingFactSchema.extend({ title: z.string().max(RECORD_LIMITS.titleChars) }),
  ).max(RECORD_LIMITS.facts),
  context: z.array(ArticleSchema.extend({
    title: z.string().max(RECORD_LIMITS.titleChars),
    sentences: z.array(z.string().max(RECORD_LIMITS.sentenceChars)).max(RECORD_LIMITS.sentences),
  })).max(RECORD_LIMITS.articles),
});
export type HotpotRecord = z.infer<typeof HotpotRecordSchema>;

/** Validates `value` against `schema`, or throws a {@link UsageError} `"<where>: field <path>: <issue>"`. */
export function parseField<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new UsageError(`${where}: field ${formatPath("", issue.path, "(record)")}: ${issue.message}`);
}
