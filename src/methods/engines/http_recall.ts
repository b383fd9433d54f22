/**
 * The recall tools of an `http:` engine: POSTed to the engine's URL + `/tool` (`{"op": "tool", "session",
 * "name", "arguments"}` → `{"content"}` or `{"error"}`); closing POSTs `{"op": "close", "session"}` once.
 *
 * @module
 */
import { DEFAULT_MAX_RESPONSE_BYTES, readBoundedBody } from "../../models/response_body.ts";
import type { RecallReply, RecallSession } from "./engine.ts";
import { type OutsideReply, parseRecallReply, recallToolRequest } from "./outside_protocol.ts";

/** The tool endpoint of an engine at `url`. */
export function toolEndpoint(url: URL): URL {
  const endpoint = new URL(url);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, "")}/tool`;
  return endpoint;
}

/** Posts `body` and reads the reply up to the bound (8 MiB; a reply past it reads as empty, failing its call). */
async function post(url: URL, body: unknown, timeoutMs: number): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const reply = await readBoundedBody(response, DEFAULT_MAX_RESPONSE_BYTES);
  const text = new TextDecoder().decode(reply.bytes);
  return { status: response.status, text: reply.complete ? text : "" };
}

/** The recall session of a compress reply that offered tools. */
export function httpRecallSession(
  url: URL,
  reply: OutsideReply,
  timeoutMs: number,
  name: string,
): RecallSession {
  const endpoint = toolEndpoint(url);
  let closed = false;
  return {
    tools: reply.tools,
    async call(tool, args): Promise<RecallReply> {
      try {
        const { status, text } = await post(
          endpoint,
          recallToolRequest(tool, args, reply.session),
          timeoutMs,
        );
        if (status < 200 || status > 299) {
          return { ok: false, error: `${name}: tool endpoint HTTP ${status}` };
        }
        return parseRecallReply(text, name);
      } catch (error) {
        if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")) {
          return { ok: false, error: `${name}: tool call timed out after ${timeoutMs} ms` };
        }
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
