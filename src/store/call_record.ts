/**
 * The call record: one HTTP exchange with a provider, stored as a canonical JSON blob and listed in a node's
 * `requests`. It never carries credentials (no headers are recorded). The TypeScript type the clients build
 * (`CallRecord` in src/models/types.ts) is checked against this schema by tests/store_schemas.test.ts.
 *
 * @module
 */
import { z } from "zod";

/** One HTTP exchange with a provider, as stored. */
export const CallRecordSchema = z.object({
  /** Which API was called: OpenAI-compatible chat completions, or the System One decision endpoint. */
  endpoint: z.enum(["chat", "systemone"]),
  /** The JSON body sent, exactly as sent (never redacted; no headers, so no keys). */
  request: z.unknown(),
  /** The parsed JSON body received on the final attempt, when there was one and it was I-JSON, exactly as received. */
  response: z.unknown().optional(),
  /**
   * The final attempt's body as received when it was refused (cut off past its bound, not UTF-8, not JSON or
   * not I-JSON): its text (`utf-8`) or base64 of its bytes, how many bytes arrived, whether it was complete
   * (a cut-off body keeps its first 64 KiB) and the bound in force.
   */
  response_raw: z.object({
    encoding: z.enum(["utf-8", "base64"]),
    data: z.string(),
    bytes: z.number().int().nonnegative(),
    complete: z.boolean(),
    bound: z.number().int().positive(),
  }).optional(),
  /** The HTTP status of the final attempt's response, when one arrived. */
  http_status: z.number().int().optional(),
  /** `ok` when a valid response was received; `failed` otherwise (then `error` says why). */
  status: z.enum(["ok", "failed"]),
  /** Why the call failed (one line, never a secret). */
  error: z.string().optional(),
  /** How many HTTP attempts were made (retries included). */
  attempts: z.number().int().nonnegative(),
  /** Wall-clock milliseconds from the first attempt to the final answer. */
  elapsed_ms: z.number().nonnegative(),
  /** The model name the server answered with (the response's `model`): the answering model. */
  model: z.string().optional(),
  /** The response's `system_fingerprint`, when the server gave one. */
  system_fingerprint: z.string().optional(),
  /** Tokens the provider reported for the final attempt. */
  usage: z.object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
  }).optional(),
  /**
   * Present only when the response carried one of the run's secrets (8 characters or more): every occurrence in
   * the stored `response` was replaced by `replaced_with`; the call failed (`response_contains_key`) and nothing
   * was derived from the response. The one alteration of a stored body.
   */
  response_altered: z.object({
    reason: z.literal("response_contains_key"),
    /** Where each secret came from (variable names, never values). */
    secrets: z.array(z.string()),
    replaced_with: z.string(),
  }).optional(),
});
/** One HTTP exchange with a provider, as stored. */
export type StoredCallRecord = z.infer<typeof CallRecordSchema>;
