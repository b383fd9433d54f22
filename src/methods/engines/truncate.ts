/**
 * The `truncate` engine: drops the oldest turns until the window fits, keeping the leading system
 * messages and never splitting a tool group (an assistant tool-call message and all its results).
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "./engine.ts";
import { assembleWindow, splitUnits, unitsToDrop } from "./tool_groups.ts";

/** The number of leading system messages. */
export function leadingSystemCount(messages: ChatMessage[]): number {
  let n = 0;
  while (n < messages.length && messages[n].role === "system") n++;
  return n;
}

/** An engine that keeps the system prompt and the newest whole units that fit the budget (exact counts). */
export function createTruncateEngine(): ContextEngine {
  return {
    kind: "built-in",
    name: "truncate",
    compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return Promise.resolve({ messages: [...messages] });
      const systemCount = leadingSystemCount(messages);
      const head = messages.slice(0, systemCount);
      const units = splitUnits(messages.slice(systemCount));
      const drop = unitsToDrop(head, units, opts.budgetTokens, opts.counter);
      return Promise.resolve({ messages: assembleWindow(head, units, drop) });
    },
  };
}
