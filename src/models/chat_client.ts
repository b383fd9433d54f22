/**
 * The chat model client: any OpenAI-compatible endpoint through the `openai` SDK (imported at the first send),
 * temperature 0, thinking disabled. Retries (the SDK's, plus a 200 with an unusable body) share `maxRetries`.
 * It never throws for a provider failure: it returns `{ok: false, error, record}`. Records hold the bodies as
 * sent and received, never credentials; a response carrying a secret fails with `response_contains_key`.
 *
 * @module
 */
import type OpenAI from "openai";
import {
  boundedResponse,
  checkBody,
  DEFAULT_MAX_RESPONSE_BYTES,
  type RawBody,
  readBoundedBody,
} from "./response_body.ts";
import { z } from "zod";
import type { NamedSecret } from "../core/secrets.ts";
import { clientSecrets, keepReply } from "./response_secrets.ts";
import { Deadlines } from "./deadlines.ts";
import { endpointLimit } from "./endpoint_limit.ts";
import { jsonCopy } from "./json_copy.ts";
import { chatCompletion, type ChatCompletionResponse, chatReply, describeIssues } from "./chat_response.ts";
import { ATTEMPT_HEADER, type BackoffOptions, describeError, retryDelayMs, sleep } from "./retry_delay.ts";
import { currentRequestIdentity, REQUEST_IDENTITY_HEADER } from "./request_identity.ts";
import { ChatMessageSchema, ToolDefinitionSchema } from "./messages.ts";
import { plainCheck } from "../core/plain_check.ts";
import type { CallRecord, ChatModel, ChatRequest, ChatResult } from "./types.ts";

/** Default chat model name. */
export const DEFAULT_CHAT_MODEL = "qwen3.8-max";

/** Options of {@link OpenAIChatClient}. */
export interface OpenAIChatClientOptions {
  apiKey: string;
  /** e.g. `https://host/v1` (the SDK appends `/chat/completions`). */
  baseURL: string;
  /** Model name requested; default {@link DEFAULT_CHAT_MODEL}. */
  model?: string;
  /** Per-attempt timeout in ms; default 120000. */
  timeoutMs?: number;
  /** Retries after the first attempt (SDK retries); default 3. */
  maxRetries?: number;
  /** Requests in flight for this base URL, shared by all clients of it; default 4. */
  concurrency?: number;
  /** Send `enable_thinking: false` (default true). */
  sendEnableThinking?: boolean;
  /** Send `chat_template_kwargs: {enable_thinking: false}` (default true). */
  sendChatTemplateKwargs?: boolean;
  /** The fetch to use (default the global one); every call through it counts as an attempt. */
  fetch?: typeof fetch;
  /** The most bytes a response body may have; default 8 MiB. */
  maxResponseBytes?: number;
  /** Every secret of the run a response must not carry (this client's key always is one). */
  secrets?: readonly NamedSecret[];
}

/**
 * The key under which a call's {@link CallCounters} ride in the SDK's `fetchOptions` to its fetch, which takes
 * them out before sending: a symbol, so nothing on the wire and no `RequestInit` field shadowed.
 */
const CALL_KEY: unique symbol = Symbol("compaction-bench call");

/** What the shared client's fetch updates for one call. */
interface CallCounters {
  identity: string | undefined;
  /** Counts an attempt; returns its index (0 for the first). */
  attempt(): number;
  cause(text: string): void;
  /** The latest fetch's abort controller (follows the SDK's signal; aborted at the body deadline). */
  abort?: AbortController;
}

type CallInit = RequestInit & { [CALL_KEY]?: CallCounters };

/** What {@link OpenAIChatClient.complete} accepts as a request ({@link isPlainChatRequest} accepts its usual case first). */
export const ChatRequestSchema = z.object({
  messages: z.array(ChatMessageSchema).min(1),
  max_tokens: z.number().int().positive().optional(),
  tools: z.array(ToolDefinitionSchema).optional(),
});

/** Fast one-sided check of a chat request, derived from its schema (core/plain_check.ts). */
export const isPlainChatRequest = plainCheck(ChatRequestSchema);

/** A {@link ChatModel} over the `openai` SDK; see the module documentation. */
export class OpenAIChatClient implements ChatModel {
  /** The model name requested. */
  readonly model: string;
  readonly #options: Required<Omit<OpenAIChatClientOptions, "fetch" | "model" | "secrets">> & {
    fetch?: typeof fetch;
  };
  readonly #secrets: readonly NamedSecret[];
  /** The body deadline of every attempt (`timeoutMs` after its headers), one timer for all. */
  readonly #bodyDeadlines: Deadlines;
  #client: OpenAI | undefined;

  /** Creates a client; no request is made until {@link complete}. */
  constructor(options: OpenAIChatClientOptions) {
    this.model = options.model ?? DEFAULT_CHAT_MODEL;
    this.#options = {
      apiKey: options.apiKey,
      baseURL: options.baseURL.replace(/\/+$/, ""),
      timeoutMs: options.timeoutMs ?? 120_000,
      maxRetries: options.maxRetries ?? 3,
      concurrency: options.concurrency ?? 4,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      sendEnableThinking: options.sendEnableThinking ?? true,
      sendChatTemplateKwargs: options.sendChatTemplateKwargs ?? true,
      fetch: options.fetch,
    };
    this.#secrets = clientSecrets(options.apiKey, "LLM_API_KEY", options.secrets);
    this.#bodyDeadlines = new Deadlines(this.#options.timeoutMs);
    endpointLimit(this.#options.baseURL, this.#options.concurrency);
  }

  /** The JSON body this client sends for `request` (no credentials). */
  requestBody(request: ChatRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: this.model,
      messages: request.messages,
      temperature: 0,
    };
    if (request.max_tokens !== undefined) body.max_tokens = request.max_tokens;
    if (request.tools !== undefined && request.tools.length > 0) body.tools = request.tools;
    if (this.#options.sendEnableThinking) body.enable_thinking = false;
    if (this.#options.sendChatTemplateKwargs) body.chat_template_kwargs = { enable_thinking: false };
    return body;
  }

  /** Sends one chat completion; never throws for provider failures (see the module documentation). */
  complete(request: ChatRequest): Promise<ChatResult> {
    return endpointLimit(this.#options.baseURL, this.#options.concurrency)(() => this.#completeNow(request));
  }

  async #completeNow(request: ChatRequest): Promise<ChatResult> {
    // The record keeps a copy of what was sent, and that copy is serialized once and sent as is: the same text as
    // the body's, written about twice as fast (V8's fast path takes its plain objects, not messages read from
    // the store, which have no prototype).
    const sent = jsonCopy(this.requestBody(request));
    const text = JSON.stringify(sent);
    const started = performance.now();
    let attempts = 0;
    const causes: string[] = [];
    const fail = (error: string, response?: unknown, raw?: RawBody): ChatResult => {
      const record: CallRecord = {
        endpoint: "chat",
        request: sent,
        status: "failed",
        attempts,
        elapsed_ms: Math.round(performance.now() - started),
      };
      const kept = { response, raw, status: raw === undefined ? undefined : 200, causes };
      return { ok: false, error: keepReply(record, kept, error, this.#secrets)!, record };
    };

    // The usual request passes the plain check; any other goes through the schema.
    if (!isPlainChatRequest(request)) {
      const checked = ChatRequestSchema.safeParse(request);
      if (!checked.success) return fail(`invalid chat request: ${describeIssues(checked.error)}`);
    }

    const call: CallCounters = {
      identity: currentRequestIdentity(),
      attempt: () => attempts++,
      cause: (text) => causes.push(text),
    };
    const allowed = this.#options.maxRetries + 1;
    for (let bodyRetries = 0;; bodyRetries++) {
      const outcome = await this.#attempt(call, text, allowed - attempts - 1);
      if (outcome.kind === "failed") return fail(outcome.error(attempts), outcome.response, outcome.raw);
      if (outcome.kind === "ok") {
        const { json, parsed } = outcome;
        const reply = chatReply(parsed);
        const fingerprint = typeof parsed.system_fingerprint === "string"
          ? { system_fingerprint: parsed.system_fingerprint }
          : {};
        const record: CallRecord = {
          endpoint: "chat",
          request: sent,
          response: json,
          status: "ok",
          attempts,
          elapsed_ms: Math.round(performance.now() - started),
          model: parsed.model,
          ...fingerprint,
          usage: { input_tokens: reply.usage.prompt_tokens, output_tokens: reply.usage.completion_tokens },
          http_status: 200,
        };
        keepReply(record, { causes }, undefined, this.#secrets);
        return { ok: true, ...reply, ...fingerprint, record };
      }
      // A 200 whose body is cut short, not JSON or of the wrong schema: retried like a 5xx.
      causes.push(outcome.error);
      if (attempts >= allowed) {
        return fail(
          `${outcome.error} (retries exhausted, ${attempts} attempts)`,
          outcome.response,
          outcome.raw,
        );
      }
      await sleep(retryDelayMs(bodyRetries + 1, BODY_RETRY_BACKOFF));
    }
  }

  /** The SDK client of this chat client (made once: its fetch is {@link #countingFetch}). */
  #sdk(SDK: typeof OpenAI): OpenAI {
    return this.#client ??= new SDK({
      apiKey: this.#options.apiKey,
      baseURL: this.#options.baseURL,
      timeout: this.#options.timeoutMs,
      maxRetries: this.#options.maxRetries,
      fetch: (input, init) => this.#countingFetch(input, init),
      logLevel: "off",
    });
  }

  /**
   * The fetch under the SDK: counts the call's attempts, adds the attempt and identity headers, keeps a failed
   * attempt's cause, and gives each attempt an abort controller following the SDK's signal.
   */
  async #countingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const { [CALL_KEY]: call, ...rest } = (init ?? {}) as CallInit;
    if (call === undefined) throw new Error("chat client: a request outside of a call");
    const given = rest.headers;
    const abort = new AbortController();
    const sdkSignal = rest.signal;
    if (sdkSignal) {
      if (sdkSignal.aborted) abort.abort(sdkSignal.reason);
      else sdkSignal.addEventListener("abort", () => abort.abort(sdkSignal.reason), { once: true });
    }
    call.abort = abort;
    let sent: RequestInit;
    if (given instanceof Headers && this.#options.fetch === undefined) {
      // A plain record: Deno's fetch copies a Headers by iterating it, re-sorting at every step.
      const headers: Record<string, string> = {};
      given.forEach((value, name) => headers[name] = value);
      headers[ATTEMPT_HEADER] = String(call.attempt());
      if (call.identity !== undefined) headers[REQUEST_IDENTITY_HEADER] = call.identity;
      sent = { ...rest, headers, signal: abort.signal };
    } else {
      // A fetch given to the client may keep what it is handed: a Headers of its own.
      const headers = new Headers(given);
      headers.set(ATTEMPT_HEADER, String(call.attempt()));
      if (call.identity !== undefined) headers.set(REQUEST_IDENTITY_HEADER, call.identity);
      sent = { ...rest, headers, signal: abort.signal };
    }
    try {
      const response = await (this.#options.fetch ?? fetch)(input, sent);
      if (response.ok) return response;
      call.cause(`HTTP ${response.status}`);
      // The SDK reads an error's body itself: at most the bound.
      return boundedResponse(response, this.#options.maxResponseBytes);
    } catch (error) {
      const aborted = sdkSignal?.aborted === true;
      call.cause(aborted ? "aborted (timed out)" : `connection failed: ${describeError(error)}`);
      throw error;
    }
  }

  /** One SDK call (it retries statuses and connection failures), then the body read and checks. */
  async #attempt(call: CallCounters, body: string, maxRetries: number): Promise<
    | { kind: "ok"; json: unknown; parsed: ChatCompletionResponse }
    | { kind: "failed"; error: (attempts: number) => string; response?: unknown; raw?: RawBody }
    | { kind: "retry"; error: string; response?: unknown; raw?: RawBody }
  > {
    const SDK = (sdkLoaded ?? await loadSdk()).default;
    let response: Response;
    try {
      // What `chat.completions.create` does, with the body serialized once; no signal of ours (the SDK
      // would compose it with its own): #countingFetch gives each attempt a controller instead.
      response = await this.#sdk(SDK)
        .post("/chat/completions", {
          body,
          stream: false,
          maxRetries,
          headers: { "content-type": "application/json" },
          // Typed as no field at all: the SDK's type knows only `RequestInit` fields, and this is none.
          fetchOptions: { [CALL_KEY]: call } as Record<never, never>,
        })
        .asResponse();
    } catch (error) {
      if (error instanceof SDK.APIConnectionTimeoutError) {
        const ms = this.#options.timeoutMs;
        return { kind: "failed", error: (n) => `timed out after ${ms} ms (${n} attempts)` };
      }
      if (error instanceof SDK.APIConnectionError) {
        const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
        return { kind: "failed", error: (n) => `connection failed (${n} attempts)${cause}` };
      }
      if (error instanceof SDK.APIError) {
        const retried = error.status === 408 || error.status === 409 || error.status === 429 ||
          (error.status ?? 0) >= 500;
        const why = retried ? "retries exhausted" : "not retryable";
        return {
          kind: "failed",
          error: (n) => `HTTP ${error.status} (${why}, ${n} attempts): ${error.message}`,
          response: error.error,
        };
      }
      throw error;
    }

    let received: { bytes: Uint8Array; complete: boolean };
    try {
      received = await readWithDeadline(
        response,
        this.#options.maxResponseBytes,
        this.#bodyDeadlines,
        call.abort!,
        this.#options.fetch !== undefined,
      );
    } catch (error) {
      if (error instanceof TypeError || error instanceof BodyTimeoutError) {
        return {
          kind: "retry",
          error: `truncated response body (HTTP ${response.status}): ${error.message}`,
        };
      }
      throw error;
    }

    // The SDK passes on only a 2xx response: it throws for the others.
    const checked = checkBody(received, this.#options.maxResponseBytes, response.status, this.#secrets);
    if (checked.kind === "status") throw new Error(`chat client: the SDK passed on HTTP ${response.status}`);
    if (checked.kind === "failed") return { ...checked, error: () => checked.error };
    if (checked.kind === "retry") return checked;
    const json = checked.json;
    const parsed = chatCompletion(json);
    if (!parsed.ok) return { kind: "retry", error: parsed.error, response: json };
    return { kind: "ok", json, parsed: parsed.parsed };
  }
}

/** The `openai` module, imported when a client first sends. */
let sdkModule: Promise<typeof import("openai")> | undefined;
let sdkLoaded: typeof import("openai") | undefined;

function loadSdk(): Promise<typeof import("openai")> {
  return sdkModule ??= import("openai").then((module) => sdkLoaded = module);
}

/** Backoff before retrying a 200 whose body was unusable (the SDK's own retries use its backoff). */
const BODY_RETRY_BACKOFF: BackoffOptions = { baseDelayMs: 250, maxDelayMs: 8000 };

/** The response body did not finish arriving in time. */
class BodyTimeoutError extends Error {
  constructor(ms: number) {
    super(`body not complete after ${ms} ms`);
    this.name = "BodyTimeoutError";
  }
}

/**
 * Reads `response`'s body within the body deadline: past it, `abort` is aborted with a
 * {@link BodyTimeoutError}; with `race` (a given fetch may ignore its signal) the read is also raced.
 */
async function readWithDeadline(
  response: Response,
  bound: number,
  deadlines: Deadlines,
  abort: AbortController,
  race: boolean,
): Promise<{ bytes: Uint8Array; complete: boolean }> {
  const ms = deadlines.ms;
  if (!race) {
    const clear = deadlines.set(() => abort.abort(new BodyTimeoutError(ms)));
    try {
      return await readBoundedBody(response, bound);
    } finally {
      clear();
    }
  }
  let clear = () => {};
  const deadline = new Promise<never>((_, reject) => {
    clear = deadlines.set(() => reject(new BodyTimeoutError(ms)));
  });
  try {
    return await Promise.race([readBoundedBody(response, bound), deadline]);
  } catch (error) {
    if (error instanceof BodyTimeoutError) abort.abort(error);
    throw error;
  } finally {
    clear();
  }
}
