/**
 * # The reference model — model card
 *
 * **What it is.** A deterministic, offline stand-in for both endpoints on 127.0.0.1: `POST /v1/chat/completions`
 * (OpenAI shape, streamed or not) and `POST /v1/systemone`, reached through the real SDK over real HTTP.
 *
 * **How it answers.** Lexical rules over the request only (no weights, no network, no randomness); every
 * message but the last user message is context. System One: each noul is BM25 relevance squashed to [0, 1].
 * Chat (chat.ts): read listed files through an offered tool; extractive QA with `[title, sentence id]` facts;
 * summaries of extracted sentences within `max_tokens`; needle QA or `NOT IN CONTEXT` (or one call of an
 * offered search tool); quoted `js` code blocks; else the most relevant sentences. Answers are spans of the
 * context, a side named in the question, or yes/no: never invented. Usage counts with the run's counter.
 *
 * **What it is not.** A weak but honest baseline: it never sees gold labels, and reports label its scores.
 * Identical requests get identical responses (`id` from the body hash, `created` 0).
 *
 * **Fault mode.** `faults` (faults.ts) injects seeded 429s, 500s, hangs, drops and bad bodies; `delayMs`
 * holds every answer at least that long. Built on `node:http`: only it can drop a connection before a status.
 * Requests are read by zod schemas: known fields checked (a 400 names the field), unknown ones pass.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import type { TokenCounter } from "../../tokens/types.ts";
import { describeIssues } from "../chat_response.ts";
import { NoulQuestionsSchema } from "../decision_client.ts";
import { referenceReply, ToolChoiceSchema } from "./chat.ts";
import { ATTEMPT_HEADER } from "../retry_delay.ts";
import { REQUEST_IDENTITY_HEADER, REQUEST_IDENTITY_PATTERN } from "../request_identity.ts";
import { chooseFault, FAULT_KINDS, type FaultKind, type FaultSpec } from "./faults.ts";
import { sha256Hex } from "../../store/hash.ts";
import { parseJson as parseBoundedJson } from "../../core/json_read.ts";
import { concatBytes } from "../../core/bytes.ts";
import { bm25Scores } from "./bm25.ts";
import type { ChatMessage, ChatUsage, ToolCall } from "../messages.ts";
import { ChatMessageSchema, toolCallArguments, ToolCallSchema, ToolDefinitionSchema } from "../messages.ts";

/** The model name the reference chat endpoint answers with (1.1: system messages are context; 1 ignored them). */
export const REFERENCE_CHAT_MODEL = "compaction-bench-reference-chat-1.1";
/** The model name the reference System One endpoint answers with. */
export const REFERENCE_DECISION_MODEL = "compaction-bench-reference-jev-1";
/** Largest request body accepted (bytes); larger gets HTTP 413. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** Options of {@link startReferenceServer}. */
export interface ReferenceServerOptions {
  counter: TokenCounter;
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  faults?: FaultSpec;
  /** Fixed latency of every answer, counted from the request's arrival (ms). */
  delayMs?: number;
  seed?: number;
  /** Delay a 429 asks for (ms); default 1000. */
  retryAfterMs?: number;
}

/** Counters of a running reference server. */
export interface ReferenceServerStats {
  requests: number;
  /** Requests answered with a normal 200 reply, per endpoint. */
  answered: { chat: number; systemone: number };
  /** Requests refused as invalid (4xx). */
  rejected: number;
  faults: Record<FaultKind, number>;
}

/** A running reference server. */
export interface ReferenceServer {
  /** `http://127.0.0.1:PORT/v1`, for both clients. */
  baseUrl: string;
  port: number;
  /** Stops listening, ends hanging requests and closes every connection. */
  close(): Promise<void>;
  stats(): ReferenceServerStats;
}

/** Message content as clients send it: a string, null, or text parts (joined; other part types refused). */
const ContentSchema = z.union([
  z.string(),
  z.null(),
  z.array(z.looseObject({ type: z.literal("text"), text: z.string() })).transform((parts) =>
    parts.map((part) => part.text).join("")
  ),
]);

/** One request message: the public chat fields (others dropped), content normalized to a string or null. */
const RequestMessageSchema = z.looseObject({
  role: ChatMessageSchema.shape.role,
  content: ContentSchema.optional(),
  tool_calls: z.array(ToolCallSchema).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
}).transform((message): ChatMessage => ({
  role: message.role,
  content: message.content ?? null,
  ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
  ...(typeof message.tool_call_id === "string" ? { tool_call_id: message.tool_call_id } : {}),
  ...(typeof message.name === "string" ? { name: message.name } : {}),
}));

/** A chat completion request as the reference server reads it. */
const ReferenceChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(RequestMessageSchema).min(1),
  tools: z.array(ToolDefinitionSchema).nullish(),
  tool_choice: ToolChoiceSchema.nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

/** A System One request as the reference server reads it. */
const ReferenceSystemOneRequestSchema = z.looseObject({
  model: z.string().min(1),
  state: z.string(),
  questions: NoulQuestionsSchema,
});

class HttpProblem extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function readBody(request: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new HttpProblem(413, `request body over ${MAX_REQUEST_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(concatBytes(chunks)));
    request.on("error", reject);
  });
}

function sendJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
) {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(bytes.length),
    ...headers,
  });
  response.end(bytes);
}

const EVENT_STREAM = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };

/** A reply body: one JSON value, or a stream of server-sent events. */
type ChatAnswer = { json: unknown } | { stream: string[] };

function errorBody(message: string, type: string) {
  return { error: { message, type, code: null } };
}

function parseJson<S extends z.ZodType>(bytes: Uint8Array, schema: S, what: string): z.infer<S> {
  let json: unknown;
  try {
    json = parseBoundedJson(new TextDecoder().decode(bytes));
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new HttpProblem(400, `${what}: body is not JSON: ${error.message}`);
    }
    throw error;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new HttpProblem(400, `${what}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** Waits `ms`, or until `signal` aborts (then resolves early). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch((error) => {
    if (!signal.aborted) throw error;
  });
}

/** The half-point of the squash: a BM25 score of SQUASH_K gives 0.5. */
const SQUASH_K = 2;

/**
 * One noul per question, in question order: the BM25 relevance of its text to the state (the questions as
 * documents), squashed to [0, 1] by `s / (s + SQUASH_K)`.
 */
export function referenceNouls(state: string, instructions: readonly string[]): number[] {
  return bm25Scores(state, instructions).map((score) => score / (score + SQUASH_K));
}

/** Code points of tool-call arguments per streamed fragment. */
const ARGUMENT_FRAGMENT_CHARS = 16;

/** What a non-streaming reference reply holds that a stream carries. */
interface StreamedCompletion {
  id: string;
  created: number;
  model: string;
  content: string | null;
  tool_calls?: ToolCall[];
  finish_reason: string;
  usage: ChatUsage;
}

/** The pieces `text` is streamed in: a word each, with its trailing whitespace; they join to `text`. */
function textPieces(text: string): string[] {
  return text === "" ? [] : text.match(/\s*\S+\s*/gu) ?? [text];
}

/** The fragments tool-call arguments are streamed in: {@link ARGUMENT_FRAGMENT_CHARS} code points each. */
const FRAGMENT = new RegExp(`[^]{1,${ARGUMENT_FRAGMENT_CHARS}}`, "gu");

/**
 * The JSON chunks of `completion`'s stream as OpenAI sends them (without the final `[DONE]`): the first delta
 * (role, and a tool call's head), the text a word per chunk or each call's arguments in fragments, the finish
 * reason, then with `include_usage` a usage chunk. Concatenating the deltas gives the reply exactly.
 */
function completionChunks(completion: StreamedCompletion, includeUsage: boolean): unknown[] {
  const { id, created, model } = completion;
  const head = { id, object: "chat.completion.chunk", created, model };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: unknown[] = [];
  const calls = completion.tool_calls ?? [];
  if (calls.length === 0) {
    chunks.push(chunk({ role: "assistant", content: "" }, null));
    for (const piece of textPieces(completion.content ?? "")) chunks.push(chunk({ content: piece }, null));
  } else {
    calls.forEach((call, index) => {
      const first = {
        tool_calls: [{
          index,
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: "" },
        }],
      };
      chunks.push(chunk(index === 0 ? { role: "assistant", content: null, ...first } : first, null));
      for (const piece of call.function.arguments.match(FRAGMENT) ?? []) {
        chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
      }
    });
  }
  chunks.push(chunk({}, completion.finish_reason));
  if (includeUsage) chunks.push({ ...head, choices: [], usage: completion.usage });
  return chunks;
}

/** The stream's bytes as server-sent events: each chunk as `data: JSON`, then `data: [DONE]`. */
function serverSentEvents(chunks: readonly unknown[]): string[] {
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"];
}

/** Starts the reference model on 127.0.0.1 (see the module documentation). */
export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const { counter } = options;
  const seed = options.seed ?? 0;
  const delayMs = options.delayMs ?? 0;
  const retryAfter = options.retryAfterMs ?? 1000;
  const shutdown = new AbortController();
  const seen = new Map<string, number>();
  const stats: ReferenceServerStats = {
    requests: 0,
    answered: { chat: 0, systemone: 0 },
    rejected: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>,
  };

  function chatReply(bytes: Uint8Array, bodyHash: string): ChatAnswer {
    const request = parseJson(bytes, ReferenceChatRequestSchema, "chat completion request");
    const tools = request.tools ?? undefined;
    const choice = request.tool_choice ?? undefined;
    if (typeof choice === "object" && choice !== null) {
      if (!(tools ?? []).some((tool) => tool.function.name === choice.function.name)) {
        throw new HttpProblem(
          400,
          `chat completion request: tool_choice: names function "${choice.function.name}", which tools does not offer`,
        );
      }
    } else if (choice === "required" && (tools ?? []).length === 0) {
      throw new HttpProblem(400, 'chat completion request: tool_choice: "required" needs tools');
    }
    const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined;
    const reply = referenceReply({
      messages: request.messages,
      tools,
      tool_choice: choice,
      max_tokens: maxTokens,
    }, counter);
    const promptTokens = counter.countMessages(request.messages, tools);
    const completionText = reply.content ??
      (reply.tool_calls ?? []).map((call) => call.function.arguments).join("\n");
    const completionTokens = counter.countText(completionText);
    const completion: StreamedCompletion = {
      id: `chatcmpl-ref-${bodyHash.slice(0, 24)}`,
      created: 0,
      model: REFERENCE_CHAT_MODEL,
      content: reply.content,
      ...(reply.tool_calls ? { tool_calls: reply.tool_calls } : {}),
      finish_reason: reply.finish_reason,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    };
    if (request.stream === true) {
      const includeUsage = request.stream_options?.include_usage === true;
      return { stream: serverSentEvents(completionChunks(completion, includeUsage)) };
    }
    const { id, created, model, content, tool_calls, finish_reason, usage } = completion;
    const message = { role: "assistant", content, ...(tool_calls ? { tool_calls } : {}) };
    const choices = [{ index: 0, message, finish_reason, logprobs: null }];
    return { json: { id, object: "chat.completion", created, model, choices, usage } };
  }

  function systemOneReply(bytes: Uint8Array): unknown {
    const request = parseJson(bytes, ReferenceSystemOneRequestSchema, "systemone request");
    const texts = request.questions.map((question) =>
      question.criteria ? `${question.instructions}\n${question.criteria}` : question.instructions
    );
    const nouls = referenceNouls(request.state, texts);
    const inputTokens = counter.countText(request.state) +
      texts.reduce((sum, text) => sum + counter.countText(text), 0);
    return {
      model: REFERENCE_DECISION_MODEL,
      answers: nouls.map((noul) => ({ type: "noul", noul })),
      usage: { input_tokens: inputTokens, output_tokens: nouls.length },
    };
  }

  async function injectFault(
    kind: FaultKind,
    endpoint: "chat" | "systemone",
    request: IncomingMessage,
    response: ServerResponse,
    streamed: boolean,
  ): Promise<void> {
    stats.faults[kind]++;
    if (streamed && (kind === "malformed" || kind === "truncated" || kind === "schema")) {
      return await injectStreamFault(kind, request, response);
    }
    switch (kind) {
      case "429":
        return sendJson(response, 429, errorBody("reference fault: rate limited", "rate_limit_error"), {
          "retry-after": String(Math.ceil(retryAfter / 1000)),
          "retry-after-ms": String(retryAfter),
        });
      case "500":
        return sendJson(response, 500, errorBody("reference fault: internal error", "server_error"));
      case "hang": {
        const gone = new AbortController();
        request.socket.once("close", () => gone.abort());
        await pause(2 ** 31 - 1, AbortSignal.any([gone.signal, shutdown.signal]));
        request.socket.destroy();
        return;
      }
      case "drop":
        request.socket.destroy();
        return;
      case "malformed": {
        const text = '{"id": "chatcmpl-ref-malformed", "choices": [{"message": <<not json>>';
        response.writeHead(200, {
          "content-type": "application/json",
          "content-length": String(text.length),
        });
        response.end(text);
        return;
      }
      case "truncated": {
        const full = new TextEncoder().encode(JSON.stringify({ padding: "x".repeat(512), truncated: true }));
        response.writeHead(200, {
          "content-type": "application/json",
          "content-length": String(full.length),
        });
        response.write(full.subarray(0, full.length >> 1));
        await pause(20, shutdown.signal);
        request.socket.destroy();
        return;
      }
      case "schema":
        return sendJson(
          response,
          200,
          endpoint === "chat"
            ? {
              id: "chatcmpl-ref-schema",
              object: "chat.completion",
              model: REFERENCE_CHAT_MODEL,
              output: "no choices here",
            }
            : {
              model: REFERENCE_DECISION_MODEL,
              answers: [{ type: "noul", noul: 1.5 }],
              usage: { input_tokens: 0 },
            },
        );
    }
  }

  /** A body fault of a streamed answer: a malformed event, a stream cut before its end, a chunk without choices. */
  async function injectStreamFault(
    kind: "malformed" | "truncated" | "schema",
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const base = {
      id: `chatcmpl-ref-${kind}`,
      object: "chat.completion.chunk",
      created: 0,
      model: REFERENCE_CHAT_MODEL,
    };
    response.writeHead(200, EVENT_STREAM);
    if (kind === "malformed") {
      response.end('data: {"id": "chatcmpl-ref-malformed", "choices": [<<not json>>\n\n');
      return;
    }
    if (kind === "schema") {
      response.end(serverSentEvents([{ ...base, output: "no choices here" }]).join(""));
      return;
    }
    const first = {
      ...base,
      choices: [{ index: 0, delta: { role: "assistant", content: "cut" }, finish_reason: null }],
    };
    response.write(`data: ${JSON.stringify(first)}\n\n`);
    await pause(20, shutdown.signal);
    request.socket.destroy();
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    stats.requests++;
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname.replace(/\/+$/, "");
    const endpoint = path === "/v1/chat/completions"
      ? "chat"
      : path === "/v1/systemone"
      ? "systemone"
      : undefined;
    if (endpoint === undefined) throw new HttpProblem(404, `no such endpoint: ${path}`);
    if (request.method !== "POST") throw new HttpProblem(405, `${path} accepts POST only`);
    const bytes = await readBody(request);
    const bodyHash = sha256Hex(bytes);
    const counted = seen.get(bodyHash) ?? 0;
    seen.set(bodyHash, counted + 1);
    const declared = request.headers[ATTEMPT_HEADER];
    const attempt = typeof declared === "string" && /^\d{1,6}$/.test(declared) ? Number(declared) : counted;
    const named = request.headers[REQUEST_IDENTITY_HEADER];
    const identity = typeof named === "string" && REQUEST_IDENTITY_PATTERN.test(named) ? named : undefined;
    const fault = options.faults ? chooseFault(options.faults, seed, bodyHash, attempt, identity) : undefined;
    if (fault !== undefined) {
      return await injectFault(
        fault,
        endpoint,
        request,
        response,
        // A body asking for a streamed answer (`"stream": true`), read as a JSON object (false when not JSON).
        endpoint === "chat" && toolCallArguments(new TextDecoder().decode(bytes))?.stream === true,
      );
    }
    // From the request's arrival: every answer takes max(delayMs, compute time).
    const delay = delayMs > 0 ? pause(delayMs, shutdown.signal) : undefined;
    const reply: ChatAnswer = endpoint === "chat"
      ? chatReply(bytes, bodyHash)
      : { json: systemOneReply(bytes) };
    await delay;
    stats.answered[endpoint]++;
    if (!("stream" in reply)) return sendJson(response, 200, reply.json);
    // Server-sent events, every event written before the end.
    response.writeHead(200, EVENT_STREAM);
    for (const event of reply.stream) response.write(event);
    response.end();
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      if (response.headersSent || request.socket.destroyed) return;
      if (error instanceof HttpProblem) {
        stats.rejected++;
        const type = error.status === 400 ? "invalid_request_error" : "not_found_error";
        sendJson(response, error.status, errorBody(error.message, type));
        return;
      }
      sendJson(response, 500, errorBody(`reference server error: ${String(error)}`, "server_error"));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    stats: () => structuredClone(stats),
    close: async () => {
      shutdown.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
