/**
 * The call record: one provider exchange as every layer stores and reads it (never headers or credentials).
 * @module
 */
import { z } from "zod";

/** One HTTP exchange with a provider, as stored (docs/schemas/store/call_record.schema.json). */
export const CallRecordSchema = z.object({
  endpoint: z.enum(["chat", "systemone"]),
  /** The JSON body sent, exactly (never redacted; no headers, so no keys). */
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
  /** The cause of each failed attempt, in order (absent when the first attempt succeeded). */
  attempt_errors: z.array(z.string()).optional(),
  /** Wall-clock ms from the first attempt to the final answer. */
  elapsed_ms: z.number().nonnegative(),
  /** The model name the server answered with (the response's `model`): the answering model. */
  model: z.string().optional(),
  system_fingerprint: z.string().optional(),
  usage: z.object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
  }).optional(),
  /** Present only when the response carried a run's secret: each occurrence replaced; the call failed. */
  response_altered: z.object({
    reason: z.literal("response_contains_key"),
    /** Where each secret came from (variable names such as `LLM_API_KEY`, never values). */
    secrets: z.array(z.string()),
    replaced_with: z.string(),
  }).optional(),
});
/** One HTTP exchange with a provider, safe to store. */
export type CallRecord = z.infer<typeof CallRecordSchema>;

/** How a stored response differs from the one received (see {@link CallRecord.response_altered}). */
export type ResponseAlteration = NonNullable<CallRecord["response_altered"]>;
