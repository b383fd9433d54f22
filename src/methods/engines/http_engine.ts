/**
 * Outside engines as HTTP services: `http:URL` POSTs `{messages, budget_tokens, current_tokens}` as JSON
 * and expects `{messages}` back with status 2xx. The request is aborted after the time limit. Failures
 * are {@link EngineError}s naming the reason.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { type CompressOptions, type CompressResult, type ContextEngine, EngineError } from "./engine.ts";
import { outsideRequest, parseOutsideReply } from "./outside_protocol.ts";

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
        text = await response.text();
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
      return { messages: parseOutsideReply(text, name) };
    },
  };
}
