/**
 * The `jev+summary` engine: Jev's selection within the seed's fusion share (40%, the registry's
 * `jev+summary` `fusion_share`, src/methods/registry.ts) of the space the leading system messages leave, then
 * a chat-model summary of only the tool pairs Jev dropped, in all the space left, placed after the system
 * prompt and before the kept messages. (Until engines-engine v3 Jev had 80% of the budget and the summary
 * 20%; the two suites now split the same way.)
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel, DecisionModel } from "../../models/types.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "./engine.ts";
import { jevSelect } from "./jev.ts";
import { fitTextToBudget, summarizeMessages, summaryMessage } from "./summarize.ts";
import { leadingSystemCount } from "./truncate.ts";
import { declaredMethod } from "../registry.ts";

/** Share of the space (budget less the leading system messages) Jev's selection may take: the seed's 40%. */
export const FUSION_SHARE: number = declaredMethod("jev+summary")!.params.fusion_share;

/** An engine that combines Jev's selection with a summary of the dropped pairs. */
export function createJevSummaryEngine(decision: DecisionModel, chat: ChatModel): ContextEngine {
  return {
    kind: "built-in",
    name: "jev+summary",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
      const { counter, budgetTokens } = opts;
      const headTokens = counter.countMessages(messages.slice(0, leadingSystemCount(messages)));
      const jevBudget = headTokens + Math.floor(FUSION_SHARE * Math.max(0, budgetTokens - headTokens));
      const selection = await jevSelect(decision, messages, jevBudget, counter);
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
