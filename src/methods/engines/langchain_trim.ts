/**
 * The `langchain-trim` engine: LangChain's `trimMessages` (`strategy: "last"`, `includeSystem`, `startOn:
 * "human"`, whole messages) with this program's token counter; its output is the window. When no suffix
 * starting on a user message fits, LangChain keeps nothing: the engine's failure, with the reason.
 *
 * @module
 */
import { type BaseMessage, trimMessages } from "@langchain/core/messages";
import type { ChatMessage } from "../../models/messages.ts";
import { type CompressOptions, type CompressResult, EngineError } from "./engine.ts";
import { fromLangChain, inInputOrder, toLangChainAll } from "./frameworks/langchain_messages.ts";

/** One compress call of the `langchain-trim` engine: LangChain's `trimMessages` toward the budget. */
export async function langchainTrim(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
  if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
  const tokenCounter = (list: BaseMessage[]) => opts.counter.countMessages(inInputOrder(list, messages));
  const trimmed = await trimMessages(toLangChainAll(messages), {
    maxTokens: opts.budgetTokens,
    strategy: "last",
    tokenCounter,
    includeSystem: true,
    startOn: "human",
    allowPartial: false,
  });
  // With includeSystem, trimMessages returns `[undefined]` when nothing fits: its window is then empty.
  const kept = trimmed.filter((message) => message !== undefined);
  if (kept.length === 0) {
    throw new EngineError(
      "langchain-trim: trimMessages kept no message (no suffix that starts on a user message fits the budget)",
    );
  }
  return { messages: kept.map((message) => fromLangChain(message, messages)) };
}
