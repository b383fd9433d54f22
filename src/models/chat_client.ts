/**
 * The chat model client: any OpenAI-compatible endpoint through the `openai` npm SDK.
 *
 * Temperature 0; thinking disabled by sending `enable_thinking: false` and
 * `chat_template_kwargs: {enable_thinking: false}` as extra body fields (each can be switched off for
 * servers that reject unknown fields). The SDK retries 408/409/429/5xx and connection failures itself,
 * honouring `Retry-After`/`retry-after-ms`; the client counts every attempt with a wrapping `fetch`. A
 * concurrency limit is shared by all clients of one base URL.
 *
 * The client never throws for a provider failure: it returns `{ok: false, error, record}`. A response
 * body that is not JSON, is cut short, or does not match {@link ChatCompletionResponseSchema} is a failed
 * call with the reason. Records carry the request body and the response body, never credentials (every
 * string in a record is also scrubbed of the API key in case a server echoes it).
 *
 * @module
 */
import OpenAI from "openai";
import { z } from "zod";
import { redact, redactValue } from "./credentials.ts";
import { endpointLimit } from "./endpoint_limit.ts";
import { ChatCompletionResponseSchema, describeIssues } from "./chat_response.ts";
import { ChatMessageSchema, ToolDefinitionSchema } from "./messages.ts";
import type { CallRecord, ChatModel, ChatRequest, ChatResult } from "./types.ts";

/** Default chat model name. */
export const DEFAULT_CHAT_MODEL = "qwen3.8-max";
/** Default per-attempt timeout (ms). */
export const DEFAULT_CHAT_TIMEOUT_MS = 120_000;
/** Default number of retries after the first attempt. */
export const DEFAULT_CHAT_MAX_RETRIES = 3;

/** Options of {@link OpenAIChatClient}. */
export interface OpenAIChatClientOptions {
  apiKey: string;
  /** e.g. `https://host/v1` (the SDK appends `/chat/completions`). */
  baseURL: string;
  /** Model name requested; default {@link DEFAULT_CHAT_MODEL}. */
  model?: string;
  /** Per-attempt timeout in ms; default {@link DEFAULT_CHAT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Retries after the first attempt (SDK retries); default {@link DEFAULT_CHAT_MAX_RETRIES}. */
  maxRetries?: number;
  /** Requests in flight for this base URL, shared by all clients of it; default 4. */
  concurrency?: number;
  /** Send `enable_thinking: false` (default true). */
  sendEnableThinking?: boolean;
  /** Send `chat_template_kwargs: {enable_thinking: false}` (default true). */
  sendChatTemplateKwargs?: boolean;
  /** The fetch to use (default the global one); every call through it counts as an attempt. */
  fetch?: typeof fetch;
}

const RequestSchema = z.object({
  messages: z.array(ChatMessageSchema).min(1),
  max_tokens: z.number().int().positive().optional(),
  tools: z.array(ToolDefinitionSchema).optional(),
});

/** A {@link ChatModel} over the `openai` SDK; see the module documentation. */
export class OpenAIChatClient implements ChatModel {
  /** The model name requested. */
  readonly model: string;
  readonly #options: Required<Omit<OpenAIChatClientOptions, "fetch" | "model">> & { fetch?: typeof fetch };

  /** Creates a client; no request is made until {@link complete}. */
  constructor(options: OpenAIChatClientOptions) {
    this.model = options.model ?? DEFAULT_CHAT_MODEL;
    this.#options = {
      apiKey: options.apiKey,
      baseURL: options.baseURL.replace(/\/+$/, ""),
      timeoutMs: options.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_CHAT_MAX_RETRIES,
      concurrency: options.concurrency ?? 4,
      sendEnableThinking: options.sendEnableThinking ?? true,
      sendChatTemplateKwargs: options.sendChatTemplateKwargs ?? true,
      fetch: options.fetch,
    };
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
    const secrets = [this.#options.apiKey];
    const body = this.requestBody(request);
    const started = performance.now();
    let attempts = 0;
    const fail = (error: string, response?: unknown): ChatResult => {
      const record: CallRecord = {
        endpoint: "chat",
        request: redactValue(body, secrets),
        status: "failed",
        error: redact(error, secrets),
        attempts,
        elapsed_ms: Math.round(performance.now() - started),
      };
      if (response !== undefined) record.response = redactValue(response, secrets);
      return { ok: false, error: record.error!, record };
    };

    const checked = RequestSchema.safeParse(request);
    if (!checked.success) return fail(`invalid chat request: ${describeIssues(checked.error)}`);

    const baseFetch = this.#options.fetch ?? fetch;
    const countingFetch: typeof fetch = (input, init) => {
      attempts++;
      return baseFetch(input, init);
    };
    const client = new OpenAI({
      apiKey: this.#options.apiKey,
      baseURL: this.#options.baseURL,
      timeout: this.#options.timeoutMs,
      maxRetries: this.#options.maxRetries,
      fetch: countingFetch,
      logLevel: "off",
    });

    const abort = new AbortController();
    let response: Response;
    try {
      response = await client.chat.completions
        .create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, { signal: abort.signal })
        .asResponse();
    } catch (error) {
      if (error instanceof OpenAI.APIConnectionTimeoutError) {
        return fail(`timed out after ${this.#options.timeoutMs} ms (${attempts} attempts)`);
      }
      if (error instanceof OpenAI.APIConnectionError) {
        const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
        return fail(`connection failed (${attempts} attempts)${cause}`);
      }
      if (error instanceof OpenAI.APIError) {
        const retried = error.status === 408 || error.status === 409 || error.status === 429 ||
          (error.status ?? 0) >= 500;
        const why = retried ? "retries exhausted" : "not retryable";
        return fail(`HTTP ${error.status} (${why}, ${attempts} attempts): ${error.message}`, error.error);
      }
      throw error;
    }

    let text: string;
    try {
      text = await readWithDeadline(response, this.#options.timeoutMs, abort);
    } catch (error) {
      if (error instanceof TypeError || error instanceof BodyTimeoutError) {
        return fail(`truncated response body (HTTP ${response.status}): ${error.message}`);
      }
      throw error;
    }

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      if (error instanceof SyntaxError) {
        return fail(`malformed JSON response (HTTP ${response.status}): ${error.message}`, text);
      }
      throw error;
    }

    const parsed = ChatCompletionResponseSchema.safeParse(json);
    if (!parsed.success) {
      return fail(
        `response does not match the chat completion schema: ${describeIssues(parsed.error)}`,
        json,
      );
    }
    const choice = parsed.data.choices[0];
    const usage = parsed.data.usage;
    const record: CallRecord = {
      endpoint: "chat",
      request: redactValue(body, secrets),
      response: redactValue(json, secrets),
      status: "ok",
      attempts,
      elapsed_ms: Math.round(performance.now() - started),
      model: parsed.data.model,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
    };
    const toolCalls = choice.message.tool_calls ?? undefined;
    return {
      ok: true,
      content: choice.message.content ?? "",
      ...(toolCalls && toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      usage: {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        total_tokens: usage.total_tokens,
      },
      model: parsed.data.model,
      finish_reason: choice.finish_reason ?? "stop",
      record,
    };
  }
}

/** The response body did not finish arriving in time. */
class BodyTimeoutError extends Error {
  constructor(ms: number) {
    super(`body not complete after ${ms} ms`);
    this.name = "BodyTimeoutError";
  }
}

async function readWithDeadline(response: Response, ms: number, abort: AbortController): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyTimeoutError(ms)), ms);
  });
  try {
    return await Promise.race([response.text(), deadline]);
  } catch (error) {
    if (error instanceof BodyTimeoutError) abort.abort();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
