/**
 * The call record: one provider exchange as every layer stores and reads it (request and response bodies,
 * never headers or credentials).
 *
 * @module
 */

/** One HTTP exchange with a provider, safe to store: it never carries credentials. */
export interface CallRecord {
  endpoint: "chat" | "systemone";
  /** The JSON body sent (no headers, no keys). */
  request: unknown;
  /** The parsed JSON body received on the final attempt, when there was one. */
  response?: unknown;
  status: "ok" | "failed";
  error?: string;
  attempts: number;
  /** The cause of each failed attempt, in order (absent when the first attempt succeeded). */
  attempt_errors?: string[];
  elapsed_ms: number;
  /** The model name the server answered with. */
  model?: string;
  usage?: { input_tokens: number; output_tokens: number };
}
