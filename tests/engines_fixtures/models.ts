/**
 * Shared pieces of the engines tests: one token counter per test process (building it takes ~0.75 s) and
 * the reference model server with real SDK clients talking to it over loopback HTTP.
 *
 * @module
 */
import { loadTokenCounter } from "../../src/tokens/load.ts";
import { OpenAIChatClient } from "../../src/models/chat_client.ts";
import { SystemOneClient } from "../../src/models/decision_client.ts";
import { startReferenceServer } from "../../src/models/reference/server.ts";
import type { ChatModel, DecisionModel } from "../../src/models/types.ts";
import type { TokenCounter } from "../../src/tokens/types.ts";

let counter: Promise<TokenCounter> | undefined;

/** The default (Qwen3) token counter, built once per process. */
export function sharedCounter(): Promise<TokenCounter> {
  counter ??= loadTokenCounter();
  return counter;
}

/** Reference-model clients and a way to stop the server. */
export interface ReferenceModels {
  chat: ChatModel;
  decision: DecisionModel;
  close(): Promise<void>;
}

/** Starts the reference model server on 127.0.0.1 and returns real clients for it. */
export async function startReferenceModels(): Promise<ReferenceModels> {
  const server = await startReferenceServer({ counter: await sharedCounter() });
  const chat = new OpenAIChatClient({
    apiKey: "reference-model-no-key",
    baseURL: server.baseUrl,
    maxRetries: 0,
  });
  const decision = new SystemOneClient({
    apiKey: "reference-model-no-key",
    baseURL: server.baseUrl,
    maxAttempts: 1,
  });
  return { chat, decision, close: () => server.close() };
}
