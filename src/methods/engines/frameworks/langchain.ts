/**
 * The LangChain engines: `langchain-trim` (LangChain's `trimMessages`) and `langchain-summary` (its
 * `summarizationMiddleware`), between this program's OpenAI-layout messages and LangChain's message classes.
 * Each message handed to LangChain carries the id `m<N>` (its input index), so one it passes through unchanged
 * maps back to the exact input message; one it made itself (a summary) is converted from its fields.
 *
 * @module
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages,
} from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { type ChatMessage, toolCallArguments } from "../../../models/messages.ts";
import type { ChatModel } from "../../../models/types.ts";
import { type CompressOptions, type CompressResult, EngineError } from "../engine.ts";
import { CallLog } from "./call_log.ts";
import { leadingSystemCount } from "../tool_groups.ts";

/** One input message as a LangChain message with the id `m<index>`. */
function toLangChain(message: ChatMessage, index: number): BaseMessage {
  const id = `m${index}`;
  const content = message.content ?? "";
  switch (message.role) {
    case "system":
      return new SystemMessage({ id, content });
    case "user":
      return new HumanMessage({ id, content, ...(message.name !== undefined ? { name: message.name } : {}) });
    case "tool":
      return new ToolMessage({ id, content, tool_call_id: message.tool_call_id ?? "" });
    case "assistant": {
      const valid = [];
      const invalid = [];
      for (const call of message.tool_calls ?? []) {
        const { name, arguments: text } = call.function;
        const args = toolCallArguments(text);
        const error = "arguments are not a JSON object";
        if (args !== null) valid.push({ id: call.id, name, args, type: "tool_call" as const });
        else invalid.push({ id: call.id, name, args: text, error, type: "invalid_tool_call" as const });
      }
      return new AIMessage({ id, content, tool_calls: valid, invalid_tool_calls: invalid });
    }
  }
}

/** The text of a LangChain message's content (string content, or its text blocks joined). */
function langchainText(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((block) => typeof block === "string" ? block : "text" in block ? String(block.text) : "")
    .join("");
}

/** The input index a LangChain message came from, when it is that input message unchanged; else null. */
function originalIndex(message: BaseMessage, originals: readonly ChatMessage[]): number | null {
  const match = /^m(\d+)$/.exec(message.id ?? "");
  if (match === null) return null;
  const index = Number(match[1]);
  const original = originals[index];
  if (original === undefined) return null;
  const role =
    { system: "system", human: "user", ai: "assistant", tool: "tool" }[message.getType() as string];
  return role === original.role && langchainText(message) === (original.content ?? "") ? index : null;
}

/**
 * A LangChain message back in the OpenAI layout: the input message itself when it passed through unchanged,
 * else a message built from its role and text (summaries are plain text).
 */
function fromLangChain(message: BaseMessage, originals: readonly ChatMessage[]): ChatMessage {
  const index = originalIndex(message, originals);
  if (index !== null) return originals[index];
  const type = message.getType();
  const role = type === "system" ? "system" : type === "ai" ? "assistant" : "user";
  return { role, content: langchainText(message) };
}

/**
 * LangChain messages converted back, in input order when all are unchanged inputs (`trimMessages` hands its
 * token counter lists in reverse; this is the window those lists stand for).
 */
function inInputOrder(
  messages: readonly BaseMessage[],
  originals: readonly ChatMessage[],
): ChatMessage[] {
  const indexes = messages.map((message) => originalIndex(message, originals));
  if (indexes.includes(null)) return messages.map((message) => fromLangChain(message, originals));
  return (indexes as number[]).sort((a, b) => a - b).map((index) => originals[index]);
}

/** One compress call of the `langchain-trim` engine: LangChain's `trimMessages` toward the budget. */
export async function langchainTrim(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
  const tokenCounter = (list: BaseMessage[]) => opts.counter.countMessages(inInputOrder(list, messages));
  const trimmed = await trimMessages(messages.map(toLangChain), {
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

/** Share of the budget LangChain is told to keep as recent messages (`keep.tokens`). */
const KEEP_SHARE = 0.5;

/** The prefix LangChain puts before a summary (its default), for sizing the summary message. */
const SUMMARY_PREFIX = "Here is a summary of the conversation to date:";

/**
 * One compress call of `langchain-summary`: LangChain's `summarizationMiddleware` run as an agent runs it (the
 * leading system messages held apart, then put back), `chat` its model. `trigger` is the budget, `keep` its
 * KEEP_SHARE; LangChain keeps tool pairs whole, so it may keep more: reported as it comes.
 */
export async function langchainSummary(
  chat: ChatModel,
  messages: ChatMessage[],
  opts: CompressOptions,
): Promise<CompressResult> {
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
  // Loaded here: `langchain-trim` needs only @langchain/core.
  const { summarizationMiddleware } = await import("langchain");
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
