/**
 * Outside engines as HTTP services: `http:URL` POSTs the request as JSON and expects `{messages}` with a 2xx
 * status within the time limit. Recall tools offered are POSTed to URL + `/tool` (`{"op": "tool", "session",
 * "name", "arguments"}` → `{"content"}` or `{"error"}`); closing POSTs `{"op": "close", "session"}` once.
 *
 * @module
 */
import { DEFAULT_MAX_RESPONSE_BYTES, readBoundedBody } from "../../models/response_body.ts";
import { readOutsideReply, strictUtf8 } from "./exec_engine.ts";
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import {
  type CompressOptions,
  type CompressResult,
  type ContextEngine,
  EngineError,
  type RecallReply,
  type RecallSession,
} from "./engine.ts";
import {
  type OutsideReply,
  outsideRequest,
  parseRecallReply,
  recallToolRequest,
} from "./outside_protocol.ts";

/** An engine that POSTs to `url` once per compress call, aborted after `timeoutMs`. */
export function createHttpEngine(url: string, timeoutMs: number): ContextEngine {
  if (!URL.canParse(url)) throw new UsageError(`engine 'http:${url}': not a URL`);
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`engine 'http:${url}': the URL must be http:// or https://`);
  }
  const name = `http:${url}`;
  return {
    kind: "outside",
    name,
    timing: "http",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      const { response, body } = await post(parsed, outsideRequest(messages, opts), timeoutMs).catch(
        (error) => {
          if (aborted(error)) throw new EngineError(`${name}: timed out after ${timeoutMs} ms (aborted)`);
          if (error instanceof TypeError) throw new EngineError(`${name}: request failed: ${error.message}`);
          throw error;
        },
      );
      if (!body.complete) {
        throw new EngineError(`${name}: output over its ${DEFAULT_MAX_RESPONSE_BYTES}-byte bound: cut off`);
      }
      const text = strictUtf8(body.bytes);
      if (text === null) throw new EngineError(`${name}: output is not valid UTF-8`);
      if (!response.ok) throw new EngineError(`${name}: HTTP ${response.status}: ${text.slice(0, 200)}`);
      const reply = readOutsideReply(text, [], name, []);
      // A service may report its own compress time (`compress_ms`); the row's round trip is the HTTP call.
      const own = reply.compressMs !== undefined ? { engineMs: reply.compressMs } : {};
      if (reply.tools.length === 0) return { messages: reply.messages, ...own };
      return { messages: reply.messages, ...own, recall: httpRecallSession(parsed, reply, timeoutMs, name) };
    },
  };
}

/** POSTs `body` as JSON and reads the reply up to the bound (8 MiB), never a flood whole. */
async function post(url: URL, body: unknown, timeoutMs: number) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { response, body: await readBoundedBody(response, DEFAULT_MAX_RESPONSE_BYTES) };
}

function aborted(error: unknown): boolean {
  return error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
}

/** The recall session of a compress reply that offered tools (a tool reply past the bound fails its call). */
function httpRecallSession(url: URL, reply: OutsideReply, timeoutMs: number, name: string): RecallSession {
  const endpoint = new URL(url);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, "")}/tool`;
  let closed = false;
  return {
    tools: reply.tools,
    async call(tool, args): Promise<RecallReply> {
      try {
        const { response, body } = await post(
          endpoint,
          recallToolRequest(tool, args, reply.session),
          timeoutMs,
        );
        if (response.status < 200 || response.status > 299) {
          return { ok: false, error: `${name}: tool endpoint HTTP ${response.status}` };
        }
        return parseRecallReply(body.complete ? new TextDecoder().decode(body.bytes) : "", name);
      } catch (error) {
        if (aborted(error)) return { ok: false, error: `${name}: tool call timed out after ${timeoutMs} ms` };
        if (error instanceof TypeError) {
          return { ok: false, error: `${name}: tool call failed: ${error.message}` };
        }
        throw error;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      const body = { op: "close", ...(reply.session !== undefined ? { session: reply.session } : {}) };
      await post(endpoint, body, Math.min(timeoutMs, 5_000)).catch(() => {});
    },
  };
}
