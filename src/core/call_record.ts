/**
 * The call record: one provider exchange (request and response bodies, never headers or credentials).
 * @module
 */

/** One HTTP exchange with a provider, safe to store: it never carries credentials. */
export interface CallRecord {
  endpoint: "chat" | "systemone";
  /** The JSON body sent, exactly (never redacted; no headers, so no keys). */
  request: unknown;
  /** The parsed JSON body received on the final attempt, when there was one and it was I-JSON (never redacted, see `response_altered`). */
  response?: unknown;
  /** The refused final body (past its bound, not UTF-8/JSON/I-JSON): text or base64, first 64 KiB if cut off. */
  response_raw?: {
    encoding: "utf-8" | "base64";
    data: string;
    bytes: number;
    complete: boolean;
    bound: number;
  };
  /** The HTTP status of the final attempt's response, when one arrived. */
  http_status?: number;
  status: "ok" | "failed";
  error?: string;
  attempts: number;
  /** The cause of each failed attempt, in order (absent when the first attempt succeeded). */
  attempt_errors?: string[];
  elapsed_ms: number;
  /** The model name the server answered with (the response's `model`): the answering model, a recorded fact. */
  model?: string;
  /** The response's `system_fingerprint`, when the server gave one (chat completions). */
  system_fingerprint?: string;
  usage?: { input_tokens: number; output_tokens: number };
  /** Present only when the response carried one of the run's secrets (then replaced; the call failed). */
  response_altered?: ResponseAlteration;
}

/** How a stored response differs from the one received (see {@link CallRecord.response_altered}). */
export interface ResponseAlteration {
  reason: "response_contains_key";
  /** Where each secret found came from (variable names such as `LLM_API_KEY`; never the value). */
  secrets: string[];
  replaced_with: string;
}
