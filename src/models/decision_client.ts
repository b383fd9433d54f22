/**
 * The decision model client (Jev): TypeSafe's System One API (`POST {baseURL}/systemone`, one `noul` in [0, 1]
 * per question) over `fetch`. Question sets go in batches under the endpoint's concurrency limit; a batch
 * retries 408, 429, 5xx, network failures and bad 200 bodies with backoff; it never throws for provider
 * failures, and a reply carrying a run secret fails its batch.
 * @module
 */
import { z } from "zod";
import { checkBody, DEFAULT_MAX_RESPONSE_BYTES, type RawBody, readBoundedBody } from "./response_body.ts";
import { DEFAULT_DECISION_BASE_URL, DEFAULT_DECISION_MODEL } from "./credentials.ts";
import type { NamedSecret } from "../core/secrets.ts";
import { clientSecrets, keepReply, type KeptReply } from "./response_secrets.ts";
import { describeIssues } from "./chat_response.ts";
import {
  DEFAULT_MAX_QUESTIONS_PER_BATCH,
  MAX_SYSTEMONE_BODY_BYTES,
  singleBatchBody,
  splitQuestionBatches,
  systemOneBody,
} from "./decision_batches.ts";
import { endpointLimit } from "./endpoint_limit.ts";
import { plainCheck } from "../core/plain_check.ts";
import { ATTEMPT_HEADER, retryAfterMs, retryDelayMs, sleep } from "./retry_delay.ts";
import { identityHeader } from "./request_identity.ts";
import type { CallRecord, DecisionModel, DecisionResult, NoulQuestion } from "./types.ts";

/** Options of {@link SystemOneClient}. */
export interface SystemOneClientOptions {
  apiKey: string;
  baseURL?: string;
  model?: string;
  maxQuestionsPerBatch?: number;
  maxBodyBytes?: number;
  /** Attempts per batch including the first; default 4. */
  maxAttempts?: number;
  /** Backoff (ms): first delay 500, cap 8000. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-attempt timeout covering the response body (ms); default 120000. */
  timeoutMs?: number;
  /** Requests in flight for this base URL, shared by all clients of it; default 4. */
  concurrency?: number;
  fetch?: typeof fetch;
  /** Default 8 MiB. */
  maxResponseBytes?: number;
  /** Every secret of the run a reply must not carry (this client's key always is one). */
  secrets?: readonly NamedSecret[];
}

/** A System One reply as this client accepts it. */
export const SystemOneResponseSchema = z.object({
  /** The answering model (recorded in the call record). */
  model: z.string().min(1),
  system_fingerprint: z.string().nullish(),
  answers: z.array(z.object({ type: z.literal("noul"), noul: z.number().min(0).max(1) })),
  usage: z.object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
  }),
});

/** What {@link SystemOneClient.ask} accepts as questions ({@link isPlainQuestionList} accepts its usual case first). */
export const NoulQuestionsSchema = z.array(
  z.object({ type: z.literal("noul"), instructions: z.string(), criteria: z.string().optional() }),
);

/** Fast one-sided check of a question list, derived from its schema (core/plain_check.ts). */
export const isPlainQuestionList = plainCheck(NoulQuestionsSchema);
/** Fast one-sided check of a System One reply: the usual one is taken as read. */
export const isPlainSystemOneResponse = plainCheck(SystemOneResponseSchema);

/** The outcome of a System One reply to `asked` questions, or why it is not one (the client retries it). */
export function systemOneReply(json: unknown, asked: number): BatchOutcome {
  let reply = isPlainSystemOneResponse(json) ? json : null;
  if (reply === null) {
    const parsed = SystemOneResponseSchema.safeParse(json);
    if (!parsed.success) {
      return {
        ok: false,
        error: `response does not match the System One schema: ${describeIssues(parsed.error)}`,
      };
    }
    reply = parsed.data;
  }
  const { answers, model, system_fingerprint, usage } = reply;
  if (answers.length !== asked) {
    return {
      ok: false,
      error: `answered ${answers.length} of ${asked} questions (every question must be answered)`,
    };
  }
  const nouls = answers.map((answer) => answer.noul);
  const fingerprint = typeof system_fingerprint === "string" ? { system_fingerprint } : {};
  return { ok: true, nouls, model, ...fingerprint, usage };
}

/** One batch's outcome: its probabilities, model and usage, or why it failed. */
export type BatchOutcome =
  | {
    ok: true;
    nouls: number[];
    model: string;
    system_fingerprint?: string;
    usage: { input_tokens: number; output_tokens: number };
  }
  | { ok: false; error: string };

/** A {@link DecisionModel} over System One; see the module documentation. */
export class SystemOneClient implements DecisionModel {
  readonly model: string;
  readonly #apiKey: string;
  readonly #url: string;
  readonly #baseURL: string;
  readonly #settings: Required<
    Omit<SystemOneClientOptions, "apiKey" | "baseURL" | "model" | "fetch" | "secrets">
  >;
  readonly #fetch: typeof fetch;
  readonly #secrets: readonly NamedSecret[];

  /** Creates a client; no request is made until {@link ask}. */
  constructor(options: SystemOneClientOptions) {
    this.model = options.model ?? DEFAULT_DECISION_MODEL;
    this.#apiKey = options.apiKey;
    this.#baseURL = (options.baseURL ?? DEFAULT_DECISION_BASE_URL).replace(/\/+$/, "");
    this.#url = `${this.#baseURL}/systemone`;
    this.#settings = {
      maxQuestionsPerBatch: options.maxQuestionsPerBatch ?? DEFAULT_MAX_QUESTIONS_PER_BATCH,
      maxBodyBytes: options.maxBodyBytes ?? MAX_SYSTEMONE_BODY_BYTES,
      maxAttempts: options.maxAttempts ?? 4,
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 8000,
      timeoutMs: options.timeoutMs ?? 120_000,
      concurrency: options.concurrency ?? 4,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    };
    this.#fetch = options.fetch ?? fetch;
    this.#secrets = clientSecrets(options.apiKey, "DECISION_MODEL_API_KEY", options.secrets);
    endpointLimit(this.#baseURL, this.#settings.concurrency);
  }

  /** One probability per question in question order, or `{ok: false}` naming the first failed batch. */
  async ask(state: string, questions: NoulQuestion[]): Promise<DecisionResult> {
    // The usual question list is accepted without zod's general parser; any other goes through the schema.
    if (!isPlainQuestionList(questions)) {
      const checked = NoulQuestionsSchema.safeParse(questions);
      if (!checked.success) {
        return { ok: false, error: `invalid questions: ${describeIssues(checked.error)}`, records: [] };
      }
    }
    const limits = {
      maxQuestions: this.#settings.maxQuestionsPerBatch,
      maxBodyBytes: this.#settings.maxBodyBytes,
    };
    const limit = endpointLimit(this.#baseURL, this.#settings.concurrency);
    // Usually the whole set is one batch: its body, serialized once, is both checked and sent.
    const whole = singleBatchBody(this.model, state, questions, limits);
    let batches: { start: number; end: number; body?: string }[];
    try {
      batches = whole !== undefined
        ? [{ start: 0, end: questions.length, body: whole }]
        : splitQuestionBatches(this.model, state, questions, limits);
    } catch (error) {
      if (error instanceof RangeError) return { ok: false, error: error.message, records: [] };
      throw error;
    }
    const outcomes = await Promise.all(batches.map((batch) => {
      const part = questions.slice(batch.start, batch.end);
      return limit(() => this.#sendBatch(state, part, batch.body ?? systemOneBody(this.model, state, part)));
    }));
    return combineBatches(this.model, batches, outcomes);
  }

  /** Sends one batch (`body` is its serialized request) with its retries; never throws for provider failures. */
  async #sendBatch(
    state: string,
    questions: NoulQuestion[],
    body: string,
  ): Promise<{ result: BatchOutcome; record: CallRecord }> {
    const started = performance.now();
    let attempts = 0;
    const causes: string[] = [];
    let last: KeptReply = { causes };
    const finish = (result: BatchOutcome): { result: BatchOutcome; record: CallRecord } => {
      const record: CallRecord = {
        endpoint: "systemone",
        request: { model: this.model, state, questions },
        status: result.ok ? "ok" : "failed",
        attempts,
        elapsed_ms: Math.round(performance.now() - started),
      };
      // The reply was checked when it arrived; this is the last net (e.g. an echoing error body).
      const error = keepReply(record, last, result.ok ? undefined : result.error, this.#secrets);
      if (result.ok && error === undefined) {
        record.model = result.model;
        if (result.system_fingerprint !== undefined) record.system_fingerprint = result.system_fingerprint;
        record.usage = result.usage;
        return { result, record };
      }
      return { result: { ok: false, error: error! }, record };
    };

    for (;;) {
      attempts++;
      const attempt = await this.#attempt(body, attempts - 1, questions.length);
      last = { response: attempt.response, raw: attempt.raw, status: attempt.status, causes };
      if (attempt.kind === "done") {
        if (!attempt.result.ok) causes.push(attempt.result.error);
        return finish(attempt.result);
      }
      causes.push(attempt.error);
      if (attempts >= this.#settings.maxAttempts) {
        return finish({
          ok: false,
          error: `${attempt.error} (retries exhausted after ${attempts} attempts)`,
        });
      }
      await sleep(retryDelayMs(attempts, this.#settings, attempt.retryAfterMs));
    }
  }

  async #attempt(body: string, attemptIndex: number, asked: number): Promise<
    & { response?: unknown; raw?: RawBody; status?: number }
    & ({ kind: "done"; result: BatchOutcome } | { kind: "retry"; error: string; retryAfterMs?: number })
  > {
    const signal = AbortSignal.timeout(this.#settings.timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(this.#url, {
        method: "POST",
        headers: {
          "Authorization": `Bearer ${this.#apiKey}`,
          "Content-Type": "application/json",
          [ATTEMPT_HEADER]: String(attemptIndex),
          ...identityHeader(),
        },
        body,
        signal,
      });
    } catch (error) {
      if (signal.aborted) return { kind: "retry", error: `timed out after ${this.#settings.timeoutMs} ms` };
      if (error instanceof TypeError) return { kind: "retry", error: `connection failed: ${error.message}` };
      throw error;
    }

    let received: { bytes: Uint8Array; complete: boolean };
    try {
      // A body past the bound is cut off and fails the batch at once.
      received = await readBoundedBody(response, this.#settings.maxResponseBytes);
    } catch (error) {
      if (error instanceof TypeError || (error instanceof DOMException && signal.aborted)) {
        const why = signal.aborted ? `not complete after ${this.#settings.timeoutMs} ms` : error.message;
        return { kind: "retry", error: `truncated response body (HTTP ${response.status}): ${why}` };
      }
      throw error;
    }

    const status = response.status;
    const checked = checkBody(received, this.#settings.maxResponseBytes, status, this.#secrets);
    if (checked.kind === "status") {
      const text = received.complete ? checked.text : checked.text.slice(0, 4096);
      const detail = `HTTP ${status}: ${text.slice(0, 300)}`;
      if (status === 408 || status === 429 || status >= 500) {
        return { kind: "retry", error: detail, retryAfterMs: retryAfterMs(response.headers), response: text };
      }
      return { kind: "done", result: { ok: false, error: `${detail} (not retryable)` }, response: text };
    }
    if (checked.kind === "failed") {
      const { response: reply, raw } = checked;
      return {
        kind: "done",
        result: { ok: false, error: checked.error },
        response: reply,
        raw,
        status: raw && status,
      };
    }
    if (checked.kind === "retry") return { ...checked, status };
    const json = checked.json;
    // A wrong-schema reply, or one that skips a question, is retried.
    const result = systemOneReply(json, asked);
    if (!result.ok) return { kind: "retry", error: result.error, response: json, status };
    return { kind: "done", result, response: json, status };
  }
}

/**
 * The answer to a whole question set from its batches' outcomes: every probability, the models that answered
 * (joined by commas) and the summed usage, or the first failed batch's error. One record per batch.
 */
export function combineBatches(
  model: string,
  batches: readonly { start: number; end: number }[],
  outcomes: readonly { result: BatchOutcome; record: CallRecord }[],
): DecisionResult {
  const records = outcomes.map((outcome) => outcome.record);
  const nouls: number[] = [];
  const models = new Set<string>();
  const usage = { input_tokens: 0, output_tokens: 0 };
  for (let index = 0; index < outcomes.length; index++) {
    const { result } = outcomes[index];
    if (!result.ok) {
      const where = outcomes.length > 1
        ? `batch ${index + 1} of ${outcomes.length} (questions ${batches[index].start}-${
          batches[index].end - 1
        }): `
        : "";
      return { ok: false, error: `${where}${result.error}`, records };
    }
    nouls.push(...result.nouls);
    models.add(result.model);
    usage.input_tokens += result.usage.input_tokens;
    usage.output_tokens += result.usage.output_tokens;
  }
  return { ok: true, nouls, model: [...models].join(",") || model, usage, records };
}
