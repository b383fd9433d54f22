/**
 * The `jev+summary` engine: Jev's selection within most of the budget, then a chat-model summary of only
 * the tool pairs Jev dropped, placed after the system prompt and before the kept messages.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel, DecisionModel } from "../../models/types.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "./engine.ts";
import { jevSelect } from "./jev.ts";
import { fitTextToBudget, summarizeMessages, summaryMessage } from "./summarize.ts";
import { leadingSystemCount } from "./truncate.ts";

/** Share of the budget set aside for the summary of what Jev dropped. */
export const SUMMARY_SHARE = 0.2;

/** An engine that combines Jev's selection with a summary of the dropped pairs. */
export function createJevSummaryEngine(decision: DecisionModel, chat: ChatModel): ContextEngine {
  return {
    kind: "built-in",
    name: "jev+summary",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
      const { counter, budgetTokens } = opts;
      const reserve = Math.floor(budgetTokens * SUMMARY_SHARE);
      const selection = await jevSelect(decision, messages, budgetTokens - reserve, counter);
      if (selection.dropped.length === 0) {
        return { messages: selection.messages, usage: selection.usage, records: selection.records };
      }
      const systemCount = leadingSystemCount(selection.messages);
      const head = selection.messages.slice(0, systemCount);
      const kept = selection.messages.slice(systemCount);
      const label = "Summary of tool results removed from the context";
      const room = budgetTokens - counter.countMessages([...head, summaryMessage("", label), ...kept]) - 8;
      const outcome = await summarizeMessages(chat, selection.dropped, {
        maxTokens: Math.max(16, room),
        scope: "these tool calls and results, which were removed from the agent's context",
      });
      const build = (text: string) => [...head, summaryMessage(text, label), ...kept];
      const text = fitTextToBudget(outcome.text, build, budgetTokens, counter);
      const usage = {
        input_tokens: selection.usage.input_tokens + outcome.usage.input_tokens,
        output_tokens: selection.usage.output_tokens + outcome.usage.output_tokens,
        calls: selection.usage.calls + 1,
      };
      return { messages: build(text), usage, records: [...selection.records, outcome.record] };
    },
  };
}
