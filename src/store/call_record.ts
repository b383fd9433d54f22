/**
 * The stored call record: one provider exchange as a canonical JSON blob listed in a node's `requests` (no
 * headers, so no credentials); tests/store_schemas.test.ts holds it equal to `CallRecord` (src/core).
 * @module
 */
import { z } from "zod";

/** One HTTP exchange with a provider, as stored. */
export const CallRecordSchema = z.object({
  endpoint: z.enum(["chat", "systemone"]),
  request: z.unknown(),
  /** The parsed I-JSON body received on the final attempt, exactly as received. */
  response: z.unknown().optional(),
  /** The refused final body (past its bound, not UTF-8/JSON/I-JSON): text or base64, first 64 KiB if cut off. */
  response_raw: z.object({
    encoding: z.enum(["utf-8", "base64"]),
    data: z.string(),
    bytes: z.number().int().nonnegative(),
    complete: z.boolean(),
    bound: z.number().int().positive(),
  }).optional(),
  http_status: z.number().int().optional(),
  status: z.enum(["ok", "failed"]),
  error: z.string().optional(),
  attempts: z.number().int().nonnegative(),
  /** Wall-clock ms from the first attempt to the final answer. */
  elapsed_ms: z.number().nonnegative(),
  /** The model name the server answered with (the response's `model`). */
  model: z.string().optional(),
  system_fingerprint: z.string().optional(),
  usage: z.object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
  }).optional(),
  /** Present only when the response carried a run's secret: each occurrence replaced; the call failed. */
  response_altered: z.object({
    reason: z.literal("response_contains_key"),
    secrets: z.array(z.string()),
    replaced_with: z.string(),
  }).optional(),
});
/** One HTTP exchange with a provider, as stored. */
export type StoredCallRecord = z.infer<typeof CallRecordSchema>;
