/**
 * Schemas of the rankings and summaries both suites store; each carries its node key, so that equal results
 * of two generations still have outputs of their own and every edge of the DAG names one producer.
 * @module
 */
import { z } from "zod";

/** A rank node's `ranking` output. */
export const StoredRankingSchema = z.object({
  node: z.string().optional(),
  ok: z.boolean(),
  /** Unit ids, strictly descending probability, ties by id; empty when the ranking failed. */
  order: z.array(z.string()),
  probabilities: z.record(z.string(), z.number()).optional(),
  model: z.string().optional(),
  error: z.string().optional(),
});
/** A rank node's `ranking` output. */
export type StoredRankingValue = z.infer<typeof StoredRankingSchema>;

/** A summary node's `summary` output. */
export const StoredSummarySchema = z.object({
  node: z.string().optional(),
  ok: z.boolean(),
  text: z.string().nullable(),
  /** Unit ids kept verbatim beside the summary (fusion). */
  kept: z.array(z.string()).optional(),
  reason: z.string().optional(),
  attempts: z.number().int().optional(),
});
