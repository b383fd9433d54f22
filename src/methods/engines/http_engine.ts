/**
 * Outside engines as HTTP services: `http:URL` POSTs the request as JSON and expects `{messages}` with a 2xx
 * status within the time limit; recall tools offered go to the tool endpoint (http_recall.ts).
 *
 * @module
 */
import { DEFAULT_MAX_RESPONSE_BYTES, readBoundedBody } from "../../models/response_body.ts";
import { strictUtf8 } from "./exec_engine.ts";
import { foundRunSecrets, stolenSecretReason } from "../../models/credentials.ts";
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { type CompressOptions, type CompressResult, type ContextEngine, EngineError } from "./engine.ts";
import { outsideRequest, parseOutsideReplyWithTools } from "./outside_protocol.ts";
import { httpRecallSession } from "./http_recall.ts";

/** An engine that POSTs to `url` once per compress call, aborted after `timeoutMs`. */
export function createHttpEngine(url: string, timeoutMs: number): ContextEngine {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`engine 'http:${url}': not a URL`);
    throw error;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`engine 'http:${url}': the URL must be http:// or https://`);
  }
  const name = `http:${url}`;
  return {
    kind: "outside",
    name,
    timing: "http",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      const signal = AbortSignal.timeout(timeoutMs);
      let text: string;
      try {
        const response = await fetch(parsed, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(outsideRequest(messages, opts)),
          signal,
        });
        // Read up to the bound (8 MiB), never a flood whole; not UTF-8 is a named failure.
        const body = await readBoundedBody(response, DEFAULT_MAX_RESPONSE_BYTES);
        if (!body.complete) {
          throw new EngineError(
            `${name}: output over its ${DEFAULT_MAX_RESPONSE_BYTES}-byte bound: cut off`,
          );
        }
        const decoded = strictUtf8(body.bytes);
        if (decoded === null) throw new EngineError(`${name}: output is not valid UTF-8`);
        text = decoded;
        if (!response.ok) {
          throw new EngineError(`${name}: HTTP ${response.status}: ${text.slice(0, 200)}`);
        }
      } catch (error) {
        if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")) {
          throw new EngineError(`${name}: timed out after ${timeoutMs} ms (aborted)`);
        }
        if (error instanceof TypeError) throw new EngineError(`${name}: request failed: ${error.message}`);
        throw error;
      }
      const stolen = foundRunSecrets(text);
      if (stolen.length > 0) throw new EngineError(stolenSecretReason(name, stolen));
      const reply = parseOutsideReplyWithTools(text, name);
      // A service may report its own compress time (`compress_ms`); the row's round trip is the HTTP call.
      const own = reply.compressMs !== undefined ? { engineMs: reply.compressMs } : {};
      if (reply.tools.length === 0) return { messages: reply.messages, ...own };
      return { messages: reply.messages, ...own, recall: httpRecallSession(parsed, reply, timeoutMs, name) };
    },
  };
}
