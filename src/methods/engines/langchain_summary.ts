/**
 * The `langchain-summary` engine: LangChain's `summarizationMiddleware` run as an agent runs it (the leading
 * system messages held apart, then put back), over this program's chat model. `trigger` is the budget, `keep`
 * its KEEP_SHARE; LangChain keeps tool pairs whole, so it may keep more: reported as it comes.
 *
 * @module
 */
import { summarizationMiddleware } from "langchain";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel } from "../../models/types.ts";
import { type CompressOptions, type CompressResult, EngineError } from "./engine.ts";
import { CallLog } from "./frameworks/call_log.ts";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { fromLangChain, inInputOrder, toLangChain } from "./frameworks/langchain_messages.ts";
import { leadingSystemCount } from "./truncate.ts";

/** Share of the budget LangChain is told to keep as recent messages (`keep.tokens`). */
const KEEP_SHARE = 0.5;

/** The prefix LangChain puts before a summary (its default), for sizing the summary message. */
const SUMMARY_PREFIX = "Here is a summary of the conversation to date:";

/** One compress call of `langchain-summary`: LangChain's summarization middleware, `chat` its model. */
export async function langchainSummary(
  chat: ChatModel,
  messages: ChatMessage[],
  opts: CompressOptions,
): Promise<CompressResult> {
  if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
  const tracing = langchainTracingVariable();
  if (tracing !== null) {
    throw new EngineError(`${tracing}=true would send the transcript to LangSmith; unset it to run this`);
  }
  const { counter, budgetTokens } = opts;
  const head = messages.slice(0, leadingSystemCount(messages));
  const state = messages.slice(head.length).map((message, i) => toLangChain(message, head.length + i));
  const keepTokens = Math.floor(budgetTokens * KEEP_SHARE);
  const summaryOverhead =
    counter.countMessages([...head, { role: "user", content: `${SUMMARY_PREFIX}\n\n` }]) -
    counter.countMessages(head);
  const log = new CallLog();
  const model = new ProgramChatModel(chat, log, Math.max(16, budgetTokens - keepTokens - summaryOverhead));
  const middleware = summarizationMiddleware({
    model,
    trigger: { tokens: budgetTokens },
    keep: { tokens: keepTokens },
    tokenCounter: (list: BaseMessage[]) => counter.countMessages([...head, ...inInputOrder(list, messages)]),
  });
  const hook = middleware.beforeModel;
  const step = typeof hook === "function" ? hook : hook?.hook;
  if (step === undefined) throw new Error("langchain: summarizationMiddleware has no beforeModel step");
  // deno-lint-ignore no-explicit-any
  const update = await (step as any)({ messages: state }, { context: {} }) as
    | { messages: BaseMessage[] }
    | undefined;
  if (update === undefined) return log.result([...messages]);
  // The update replaces the state: a RemoveMessage (remove all), the summary, the preserved messages.
  const kept = update.messages.filter((message) => message.getType() !== "remove");
  return log.result([...head, ...kept.map((message) => fromLangChain(message, messages))]);
}

/** The first LangSmith tracing variable set to `true` (LangChain would then send the transcript), or null. */
function langchainTracingVariable(): string | null {
  for (
    const name of ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"]
  ) {
    try {
      if (Deno.env.get(name) === "true") return name;
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
        return null;
      }
      throw error;
    }
  }
  return null;
}

/** LangChain's view of the program's chat model for one compress call (no LangChain retries). */
class ProgramChatModel extends BaseChatModel {
  readonly #chat: ChatModel;
  readonly #log: CallLog;
  readonly #maxTokens: number;

  /** Calls `chat` with at most `maxTokens` tokens back, recording into `log`. */
  constructor(chat: ChatModel, log: CallLog, maxTokens: number) {
    super({ maxRetries: 0 });
    this.#chat = chat;
    this.#log = log;
    this.#maxTokens = maxTokens;
  }

  /** The model name LangChain reports. */
  get model(): string {
    return this.#chat.model;
  }

  /** LangChain's type tag of this model. */
  _llmType(): string {
    return "compaction-bench";
  }

  /** One completion through the program's chat client. */
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const reply = await this.#log.complete(
      this.#chat,
      messages.map((message) => fromLangChain(message, [])),
      this.#maxTokens,
    );
    const message = new AIMessage({
      content: reply.content,
      usage_metadata: {
        input_tokens: reply.input_tokens,
        output_tokens: reply.output_tokens,
        total_tokens: reply.input_tokens + reply.output_tokens,
      },
    });
    return { generations: [{ text: reply.content, message }] };
  }
}
