/**
 * The `summary` engine: keeps the system prompt and the last turn (from the last user message on) and
 * replaces everything between with one chat-model summary sized to the budget.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel } from "../../models/types.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "./engine.ts";
import { assembleWindow, unitsToDrop } from "./fit.ts";
import { fitTextToBudget, summarizeMessages, summaryMessage } from "./summarize.ts";
import { splitUnits } from "./tool_groups.ts";
import { leadingSystemCount } from "./truncate.ts";

/** The least room (tokens) kept for a summary when the last turn is large. */
const MIN_SUMMARY_TOKENS = 128;

/** Index of the last user message at or after `from`, or -1. */
export function lastUserIndex(messages: ChatMessage[], from = 0): number {
  for (let i = messages.length - 1; i >= from; i--) if (messages[i].role === "user") return i;
  return -1;
}

/** An engine that summarizes all but the system prompt and the last turn with `chat`. */
export function createSummaryEngine(chat: ChatModel): ContextEngine {
  return {
    kind: "built-in",
    name: "summary",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
      const { counter, budgetTokens } = opts;
      const head = messages.slice(0, leadingSystemCount(messages));
      const rest = splitUnits(messages.slice(head.length));
      if (rest.length === 0) return { messages: [...messages] };
      // The last turn starts at the last user message; in a single-task tool loop (one user message, right
      // after the system prompt) it is the last whole unit instead, so a tool result never loses its call.
      const lastUser = lastUserIndex(messages, head.length);
      const turnStart = lastUser > head.length ? lastUser : head.length + rest[rest.length - 1].start;
      const older = messages.slice(head.length, turnStart);
      const turnUnits = splitUnits(messages.slice(turnStart));
      const reserve = Math.min(MIN_SUMMARY_TOKENS, Math.floor(budgetTokens / 4));
      const scaffold = [...head, summaryMessage("")];
      const drop = unitsToDrop(scaffold, turnUnits, budgetTokens - reserve, counter);
      const kept = assembleWindow([], turnUnits, drop);
      const toSummarize = [...older, ...turnUnits.slice(0, drop).flatMap((unit) => unit.messages)];
      if (toSummarize.length === 0) return { messages: [...head, ...kept] };
      const room = budgetTokens - counter.countMessages([...scaffold, ...kept]) - 8;
      const outcome = await summarizeMessages(chat, toSummarize, {
        maxTokens: Math.max(16, room),
        scope: "the earlier part of this agent conversation",
      });
      const build = (text: string) => [...head, summaryMessage(text), ...kept];
      const text = fitTextToBudget(outcome.text, build, budgetTokens, counter);
      return {
        messages: build(text),
        usage: { ...outcome.usage, calls: 1 },
        records: [outcome.record],
      };
    },
  };
}
