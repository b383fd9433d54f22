/**
 * The `full` engine: the identity, the baseline every other engine is compared with.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { CompressResult, ContextEngine } from "./engine.ts";

/** An engine that returns the transcript unchanged (a copy). */
export function createFullEngine(): ContextEngine {
  return {
    kind: "built-in",
    name: "full",
    compress(messages: ChatMessage[]): Promise<CompressResult> {
      return Promise.resolve({ messages: messages.map((message) => ({ ...message })) });
    },
  };
}
