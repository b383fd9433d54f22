/**
 * The loopback endpoint through which outside engines and agents reach the chat model: an OpenAI-compatible
 * server on 127.0.0.1 where each outside call gets a token valid while it runs (the real key never leaves
 * this process); requests are forwarded with the run's model, relayed as they arrive and recorded in order.
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { assertIJson, NotIJsonError } from "../store/canonical.ts";
import { foundRunSecrets, redact, redactValue } from "./credentials.ts";
import { longSecrets, type NamedSecret, secretsIn } from "../core/secrets.ts";
import { keyFailureError, storedResponse } from "./response_secrets.ts";
import { describeError } from "./retry_delay.ts";
import type { CallRecord } from "./types.ts";
import { parseJson } from "../core/json_read.ts";
import { readBoundedBody } from "./response_body.ts";
import { Buffer } from "node:buffer";

/** The largest request body forwarded (bytes); a larger one is refused (413). */
const MAX_PROXY_REQUEST_BYTES = 32 * 1024 * 1024;
/** The largest response body relayed and recorded (bytes); past it the body is cut off and the call fails. */
const MAX_PROXY_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The chat model the endpoint forwards to. */
export interface ChatEndpoint {
  /** e.g. `http://127.0.0.1:PORT/v1` (`/chat/completions` is appended). */
  baseURL: string;
  apiKey: string;
  model: string;
  /** Other secrets of the run: a response carrying one (or the key) fails its call. */
  secrets?: readonly NamedSecret[];
}

/** One outside call's access to the endpoint. */
export interface ProxyCall {
  /** The token the outside process authenticates with (`LLM_API_KEY`). */
  readonly token: string;
  /** Revokes the token, aborts requests still in flight, and returns the call's records and usage. */
  finish(): Promise<
    { records: CallRecord[]; usage: { input_tokens: number; output_tokens: number; calls: number } }
  >;
}

/** A running loopback endpoint. */
export interface LoopbackProxy {
  /** `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  /** The model every request is forwarded to. */
  readonly model: string;
  /** Opens a call: a fresh token whose requests are recorded apart. */
  open(): ProxyCall;
  close(): Promise<void>;
}

/** The endpoint's variables' prefix: `LLM_*` for this program's adapters, `OPENAI_*` for a user's `exec:` engine. */
export type EndpointVariables = "LLM" | "OPENAI";

/** The variables an outside process gets for `call`: the endpoint, the call's token as the key, the model. */
export function proxyEnvironment(
  proxy: LoopbackProxy,
  call: ProxyCall,
  names: EndpointVariables = "LLM",
): Record<string, string> {
  return {
    [`${names}_BASE_URL`]: proxy.baseUrl,
    [`${names}_API_KEY`]: call.token,
    [`${names}_MODEL`]: proxy.model,
  };
}

interface OpenCall {
  abort: AbortController;
  /** Records by arrival order (a slot is filled when its request completes). */
  records: (CallRecord | undefined)[];
  inFlight: Set<Promise<void>>;
}

/** Starts the endpoint on an ephemeral port. */
export function startLoopbackProxy(upstream: ChatEndpoint): LoopbackProxy {
  const calls = new Map<string, OpenCall>();
  const target = `${upstream.baseURL.replace(/\/+$/, "")}/chat/completions`;
  const named: NamedSecret[] = [{ name: "LLM_API_KEY", value: upstream.apiKey }, ...(upstream.secrets ?? [])];
  const secrets = named.map((secret) => secret.value);
  const longest = Math.max(0, ...longSecrets(named).map((secret) => secret.value.length));

  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname.replace(/\/+$/, "");
    const call = calls.get(bearer(request) ?? "");
    if (call === undefined) {
      return errorResponse(401, "missing or unknown token: use the LLM_API_KEY this program handed you");
    }
    if (request.method === "GET" && (path === "/v1/models" || path === "/models")) {
      return Response.json({ object: "list", data: [{ id: upstream.model, object: "model", owned_by: "" }] });
    }
    if (request.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      return errorResponse(404, `no route ${request.method} ${path}: only POST /v1/chat/completions`);
    }
    let body: Record<string, unknown>;
    try {
      const read = await readBoundedBody(new Response(request.body), MAX_PROXY_REQUEST_BYTES);
      if (!read.complete) {
        return errorResponse(413, `the request body is over ${MAX_PROXY_REQUEST_BYTES} bytes: not forwarded`);
      }
      const text = new TextDecoder().decode(read.bytes);
      const parsed: unknown = parseJson(text, { keepLoneSurrogates: true });
      assertIJson(parsed);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new SyntaxError("not an object");
      }
      body = parsed as Record<string, unknown>;
      // A request carrying a secret of the run is not forwarded; its stored copy has the value replaced.
      const stolen = [...secretsIn(text, named), ...foundRunSecrets(text, secrets)];
      if (stolen.length > 0) {
        const reason = `request_contains_key: the request carries the value of ${
          [...new Set(stolen.map((secret) => secret.name))].join(", ")
        } (not shown): not forwarded`;
        call.records.push({
          endpoint: "chat",
          request: redactValue(body, stolen.map((secret) => secret.value)),
          attempts: 0,
          elapsed_ms: 0,
          status: "failed",
          error: reason,
        });
        return errorResponse(400, reason);
      }
    } catch (error) {
      if (!(error instanceof SyntaxError || error instanceof TypeError)) throw error;
      return errorResponse(400, `the request body is not an I-JSON object: ${error.message}`);
    }
    body.model = upstream.model;
    const stream = body.stream === true;
    if (stream) {
      const options = body.stream_options !== null && typeof body.stream_options === "object"
        ? body.stream_options as Record<string, unknown>
        : {};
      body.stream_options = { ...options, include_usage: true };
    }
    const slot = call.records.length;
    call.records.push(undefined);
    const started = performance.now();
    const record = (fields: Partial<CallRecord> & Pick<CallRecord, "status">) => {
      call.records[slot] = {
        endpoint: "chat",
        request: body,
        attempts: 1,
        elapsed_ms: Math.round(performance.now() - started),
        ...fields,
        ...(fields.error !== undefined ? { error: redact(fields.error, secrets) } : {}),
      };
    };
    let settle!: () => void;
    const done = new Promise<void>((resolve) => settle = resolve);
    call.inFlight.add(done);
    const finished = () => {
      call.inFlight.delete(done);
      settle();
    };
    let upstreamResponse: Response;
    try {
      upstreamResponse = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${upstream.apiKey}` },
        body: JSON.stringify(body),
        signal: call.abort.signal,
      });
    } catch (error) {
      const why = call.abort.signal.aborted
        ? "aborted: the outside call ended"
        : `connection failed: ${describeError(error)}`;
      record({ status: "failed", error: why });
      finished();
      return errorResponse(502, `the chat model could not be reached (${why})`);
    }
    const contentType = upstreamResponse.headers.get("content-type") ?? "application/json";
    const status = upstreamResponse.status;
    const chunks: Uint8Array[] = [];
    let received = 0;
    let completed = false;
    // Decoded as it arrives, the last `longest - 1` characters searched again: a key split across chunks is seen.
    const decoder = new TextDecoder();
    let tail = "";
    let keyFound = false;
    const complete = (failure?: string, dropBody = false) => {
      if (completed) return;
      completed = true;
      const text = new TextDecoder().decode(concatBytes(chunks));
      let outcome: Outcome = dropBody
        ? {}
        : stream && contentType.startsWith("text/event-stream")
        ? fromEventStream(text)
        : fromJson(text);
      let altered: CallRecord["response_altered"];
      let error = failure ?? (status < 200 || status > 299 ? `HTTP ${status}` : outcome.problem);
      if (outcome.response !== undefined) {
        // A response that carries a key fails its call, stored with the key replaced, no model or usage taken.
        const stored = storedResponse(outcome.response, named);
        if (stored.altered) {
          altered = stored.altered;
          outcome = { response: stored.response };
          error = keyFailureError(error, stored.found);
        }
      }
      record({
        status: error === undefined ? "ok" : "failed",
        ...(error !== undefined ? { error } : {}),
        ...(outcome.response !== undefined ? { response: outcome.response } : {}),
        ...(altered !== undefined ? { response_altered: altered } : {}),
        ...(outcome.model !== undefined ? { model: outcome.model } : {}),
        ...(outcome.usage !== undefined ? { usage: outcome.usage } : {}),
      });
      finished();
    };
    if (upstreamResponse.body === null) {
      complete();
      return new Response(null, { status, headers: { "content-type": contentType } });
    }
    const reader = upstreamResponse.body.getReader();
    const relay = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            complete();
            controller.close();
            return;
          }
          received += value.length;
          if (received > MAX_PROXY_RESPONSE_BYTES) {
            // Past the bound nothing more is held, relayed or stored: the call fails with the reason.
            chunks.length = 0;
            reader.cancel().catch(() => {});
            complete(`the response body is over ${MAX_PROXY_RESPONSE_BYTES} bytes: cut off`, true);
            controller.close(); // the caller gets a body cut short
            return;
          }
          chunks.push(value);
          const piece = decoder.decode(value, { stream: true });
          if (longest > 0 && secretsIn(tail + piece, named).length > 0 && !keyFound) {
            // A key in the reply: never relayed to the outside process; the call fails (see complete).
            keyFound = true;
            reader.cancel().catch(() => {});
            complete();
            controller.close();
            return;
          }
          if (longest > 0) tail = (tail + piece).slice(-(longest - 1));
          controller.enqueue(value);
        } catch (error) {
          complete(
            call.abort.signal.aborted
              ? "aborted: the outside call ended"
              : `body cut short: ${describeError(error)}`,
          );
          controller.error(error);
        }
      },
      cancel() {
        reader.cancel().catch(() => {});
        complete("the outside caller closed the connection before the body ended");
      },
    });
    return new Response(relay, { status, headers: { "content-type": contentType } });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handle);
  const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  return {
    baseUrl,
    model: upstream.model,
    open(): ProxyCall {
      const token = `cb-loopback-${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex")}`;
      const call: OpenCall = { abort: new AbortController(), records: [], inFlight: new Set() };
      calls.set(token, call);
      return {
        token,
        async finish() {
          calls.delete(token);
          call.abort.abort();
          await Promise.all([...call.inFlight]);
          const records = call.records.filter((r): r is CallRecord => r !== undefined);
          const usage = { input_tokens: 0, output_tokens: 0, calls: records.length };
          for (const r of records) {
            usage.input_tokens += r.usage?.input_tokens ?? 0;
            usage.output_tokens += r.usage?.output_tokens ?? 0;
          }
          return { records, usage };
        },
      };
    },
    async close() {
      for (const call of calls.values()) call.abort.abort();
      calls.clear();
      await server.shutdown();
    },
  };
}

/** What a response body says (an absent field: undefined): the stored body, model, usage, or its problem. */
interface Outcome {
  response?: unknown;
  model?: string;
  usage?: { input_tokens: number; output_tokens: number };
  problem?: string;
}

function fromJson(text: string): Outcome {
  let json: unknown;
  try {
    json = parseJson(text, { keepLoneSurrogates: true });
    assertIJson(json);
  } catch (error) {
    if (!(error instanceof SyntaxError || error instanceof NotIJsonError)) throw error;
    // Kept as the exact text received (a string is always storable); nothing is taken from it.
    const what = error instanceof SyntaxError ? "JSON" : "I-JSON";
    return { response: text, problem: `the response is not ${what}: ${error.message}` };
  }
  const object = json !== null && typeof json === "object" ? json as Record<string, unknown> : {};
  const usage = usageOf(object.usage);
  const problem = !Array.isArray(object.choices) || object.choices.length === 0
    ? "the response has no choices"
    : usage === undefined
    ? "the response has no usage"
    : undefined;
  return {
    response: json,
    model: typeof object.model === "string" ? object.model : undefined,
    usage,
    problem,
  };
}

/** A server-sent-event stream: stored as its exact text; the model and usage from its chunks. */
function fromEventStream(text: string): Outcome {
  let model: string | undefined;
  let usage: Outcome["usage"];
  let choices = false;
  let ended = false;
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") {
      ended = true;
      continue;
    }
    let chunk: Record<string, unknown>;
    try {
      chunk = parseJson(data, { keepLoneSurrogates: true }) as Record<string, unknown>;
      assertIJson(chunk);
    } catch (error) {
      if (!(error instanceof SyntaxError || error instanceof NotIJsonError)) throw error;
      return { response: text, problem: `a stream chunk is not I-JSON: ${error.message}` };
    }
    if (typeof chunk?.model === "string") model = chunk.model;
    if (Array.isArray(chunk?.choices) && chunk.choices.length > 0) choices = true;
    usage = usageOf(chunk?.usage) ?? usage;
  }
  const problem = !choices
    ? "the stream has no choices"
    : !ended
    ? "the stream did not end with [DONE]"
    : usage === undefined
    ? "the stream has no usage chunk"
    : undefined;
  return { response: text, model, usage, problem };
}

function usageOf(value: unknown): Outcome["usage"] {
  if (value === null || typeof value !== "object") return undefined;
  const { prompt_tokens, completion_tokens } = value as Record<string, unknown>;
  const count = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  if (!count(prompt_tokens) || !count(completion_tokens)) return undefined;
  return { input_tokens: prompt_tokens as number, output_tokens: completion_tokens as number };
}

function bearer(request: Request): string | null {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match ? match[1] : request.headers.get("api-key");
}

function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { message, type: "compaction_bench_loopback", code: status } }, { status });
}
