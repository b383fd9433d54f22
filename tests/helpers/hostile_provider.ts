/**
 * A hostile provider on 127.0.0.1: a chat endpoint in front of the real reference model that answers some
 * chat completions with a hostile reply instead, chosen by the SHA-256 of the request body (so a run's
 * choices are the same every time): a reply whose content holds a lone surrogate (`"\ud800"`), one whose
 * usage is an integer beyond 2^53, or a body of `hugeBytes` (default 100 MB, streamed, never held). Every
 * other request (and every System One request) is passed to the reference model. Used by the hostile-reply
 * tests and by bench/hostile_memory.ts.
 *
 * @module
 */
import { startReferenceServer } from "../../src/models/reference/server.ts";
import { sha256Hex } from "../../src/store/hash.ts";
import { loadTokenCounter } from "../../src/tokens/load.ts";

/** What a hostile reply can be. */
export type HostileMode = "honest" | "lone-surrogate" | "huge-integer" | "huge-body";

/** The modes, in the order the request hash picks them. */
export const HOSTILE_MODES: readonly HostileMode[] = [
  "honest",
  "lone-surrogate",
  "huge-integer",
  "huge-body",
];

/** A running hostile provider. */
export interface HostileProvider {
  /** For LLM_BASE_URL. */
  chatBaseUrl: string;
  /** For DECISION_MODEL_BASE_URL (the reference model). */
  referenceBaseUrl: string;
  /** How many replies of each mode were sent. */
  sent: Record<HostileMode, number>;
  close(): Promise<void>;
}

/** The mode the provider picks for a request body. */
export function hostileMode(body: string): HostileMode {
  return HOSTILE_MODES[parseInt(sha256Hex(new TextEncoder().encode(body)).slice(0, 8), 16) % 4];
}

function completion(content: string, promptTokens: string): string {
  return `{"id":"chatcmpl-hostile","object":"chat.completion","model":"hostile-model",` +
    `"choices":[{"index":0,"message":{"role":"assistant","content":${content}},"finish_reason":"stop"}],` +
    `"usage":{"prompt_tokens":${promptTokens},"completion_tokens":3,"total_tokens":${promptTokens}}}`;
}

/** A body of about `bytes` bytes: a completion whose content is one long string, streamed 1 MiB at a time. */
function hugeBody(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode("a".repeat(1 << 20));
  const head = new TextEncoder().encode(completion('"', "1").split('"content":"')[0] + '"content":"');
  let sent = 0;
  let headSent = false;
  return new ReadableStream({
    pull(controller) {
      if (!headSent) {
        headSent = true;
        return controller.enqueue(head);
      }
      if (sent >= bytes) {
        controller.enqueue(new TextEncoder().encode(`"},"finish_reason":"stop"}],"usage":{}}`));
        return controller.close();
      }
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

/** Starts the reference model and the hostile chat endpoint in front of it. */
export async function startHostileProvider(options: { hugeBytes?: number } = {}): Promise<HostileProvider> {
  const hugeBytes = options.hugeBytes ?? 100_000_000;
  const counter = await loadTokenCounter();
  const reference = await startReferenceServer({ counter });
  const sent: Record<HostileMode, number> = {
    honest: 0,
    "lone-surrogate": 0,
    "huge-integer": 0,
    "huge-body": 0,
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    const url = new URL(request.url);
    const mode = url.pathname.endsWith("/chat/completions") ? hostileMode(body) : "honest";
    sent[mode]++;
    const headers = { "content-type": "application/json" };
    switch (mode) {
      case "lone-surrogate":
        return new Response(completion('"the answer is \\ud800 here"', "12"), { headers });
      case "huge-integer":
        return new Response(completion('"a plain answer"', "9007199254740993"), { headers });
      case "huge-body":
        return new Response(hugeBody(hugeBytes), { headers });
      case "honest": {
        const upstream = await fetch(`${reference.baseUrl}${url.pathname.replace(/^\/v1/, "")}`, {
          method: "POST",
          headers,
          body,
        });
        return new Response(await upstream.text(), { status: upstream.status, headers });
      }
    }
  });
  const address = server.addr as Deno.NetAddr;
  return {
    chatBaseUrl: `http://127.0.0.1:${address.port}/v1`,
    referenceBaseUrl: reference.baseUrl,
    sent,
    async close() {
      await server.shutdown();
      await reference.close();
    },
  };
}
