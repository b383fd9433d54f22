/**
 * A chat endpoint whose sweep answers are attacks on the repair sandbox: every request that ends with the
 * sweep's follow-up (it asks for `chargeWithRetry`) is answered with the next of {@link SANDBOX_ATTACKS}, in
 * turn; every other request (summaries) is passed to the real reference model. Used by the end-to-end
 * attack test and by bench/sandbox_attacks.ts.
 *
 * @module
 */
import { startReferenceServer } from "../../src/models/reference/server.ts";
import { loadTokenCounter } from "../../src/tokens/load.ts";

/** One attack: a repair answer and what its failed checks must say. */
export interface SandboxAttack {
  name: string;
  /** The repair's JavaScript (the answer wraps it in a js block). */
  source: string;
  /** Matches the detail of at least one failed check. */
  failure: RegExp;
}

/**
 * A repair that makes no idempotency key, passes no timeout and retries declined cards, and tries every way
 * the old in-realm observation could be rewritten: it replaces JSON, the old `__gateway`, the driver and
 * Array.prototype.push, and returns forged charge ids.
 */
export const FORGING_REPAIR = `
try { globalThis.__gateway = { observe() { return { runs: [], events: [], ledger: [], callLimitHit: false }; } }; } catch {}
try { globalThis.__driver = { runAll() {} }; } catch {}
try { Object.defineProperty(globalThis, "__driver", { value: { runAll() {} } }); } catch {}
const realStringify = JSON.stringify;
JSON.stringify = function (value) {
  if (value && value.t === "charge") return realStringify({ t: "charge", idempotencyKey: "forged-key", timeoutMs: 4000 });
  return realStringify(value);
};
Array.prototype.push = function () { return this.length; };
async function chargeWithRetry(client, request) {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.charge(request, {});
      return { id: "ch_fake0001" };
    } catch (err) {
      if (attempt >= 4) return { id: "ch_fake0001" };
      await client.sleep(100 * attempt);
    }
  }
}`;

/** The attacks of issue 11, each as a repair answer. */
export const SANDBOX_ATTACKS: readonly SandboxAttack[] = [
  {
    name: "observation rewrite",
    source: FORGING_REPAIR,
    failure: /used keys \[null\]|timeoutMs \[null|attempted \d+ times|broke the channel protocol/,
  },
  {
    name: "a thrown object with a 128 MiB message",
    source: `async function chargeWithRetry(client, request) {
  throw { name: "Huge", message: "m".repeat(128 * 1024 * 1024) };
}`,
    failure: /threw Huge|died|deadline|timed out|no client\.charge call/,
  },
  {
    name: "a typed-array bomb",
    source: `async function chargeWithRetry(client, request) {
  const hoard = [];
  hoard.push(new Float64Array(2 ** 29).fill(1));
  for (;;) hoard.push(new Float64Array(2 ** 24).fill(1));
}`,
    failure: /RangeError|died|deadline|timed out|no client\.charge call/,
  },
  {
    name: "a 256 MiB error thrown at load",
    source: `throw new Error("e".repeat(256 * 1024 * 1024));
async function chargeWithRetry(client, request) { return client.charge(request, {}); }`,
    failure: /did not load|died|deadline|timed out/,
  },
];

/** The answer text of an attack: a js block as the follow-up asks for. */
export function attackAnswer(attack: SandboxAttack): string {
  return `Root cause: unknown.\n\n\`\`\`js\n${attack.source.trim()}\n\`\`\`\n`;
}

/** A running hostile endpoint. */
export interface HostileChat {
  /** Base URL for LLM_BASE_URL (chat: attacks and proxied summaries). */
  chatBaseUrl: string;
  /** Base URL for DECISION_MODEL_BASE_URL (the reference model). */
  referenceBaseUrl: string;
  /** How many attack answers were sent. */
  attacksSent(): number;
  close(): Promise<void>;
}

/** Starts the reference model and the hostile chat endpoint in front of it, both on 127.0.0.1. */
export async function startHostileChat(): Promise<HostileChat> {
  const counter = await loadTokenCounter();
  const reference = await startReferenceServer({ counter });
  let next = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    const parsed = JSON.parse(body) as { messages?: { content?: unknown }[] };
    const last = parsed.messages?.at(-1)?.content;
    const url = new URL(request.url);
    if (typeof last !== "string" || !last.includes("async function chargeWithRetry(client, request)")) {
      const upstream = await fetch(`${reference.baseUrl}${url.pathname.replace(/^\/v1/, "")}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      return new Response(await upstream.text(), {
        status: upstream.status,
        headers: { "content-type": "application/json" },
      });
    }
    const attack = SANDBOX_ATTACKS[next++ % SANDBOX_ATTACKS.length];
    const content = attackAnswer(attack);
    return Response.json({
      id: `chatcmpl-attack-${next}`,
      object: "chat.completion",
      created: 0,
      model: "hostile-chat",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  });
  return {
    chatBaseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    referenceBaseUrl: reference.baseUrl,
    attacksSent: () => next,
    close: async () => {
      await server.shutdown();
      await reference.close();
    },
  };
}
