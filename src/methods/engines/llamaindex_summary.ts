/**
 * The `llamaindex-summary` engine: LlamaIndex's `ChatSummaryMemoryBuffer` over this program's chat model (as a
 * LlamaIndex LLM recording into a {@link CallLog}); the transcript is `put` in LlamaIndex's layout and
 * `getMessages()` is the window. It counts text without the chat template, so it may end a little over budget.
 *
 * @module
 */
import { ChatSummaryMemoryBuffer } from "@llamaindex/core/memory";
import type { ChatMessage as LlamaMessage, ChatResponse, LLM, LLMMetadata } from "@llamaindex/core/llms";
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel } from "../../models/types.ts";
import type { CompressOptions, CompressResult } from "./engine.ts";
import { CallLog } from "./frameworks/call_log.ts";

/** The text LlamaIndex puts before a summary when it sends the memory (its own wording). */
const SUMMARY_PREFIX = "Summary of the conversation so far: ";

/** One message in LlamaIndex's layout. */
function toLlama(message: ChatMessage): LlamaMessage {
  const content = message.content ?? "";
  if (message.role === "tool") {
    return {
      role: "user",
      content,
      options: { toolResult: { id: message.tool_call_id ?? "", result: content, isError: false } },
    } as LlamaMessage;
  }
  if (message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0) {
    return {
      role: "assistant",
      content,
      options: {
        toolCall: message.tool_calls!.map((call) => ({
          id: call.id,
          name: call.function.name,
          input: call.function.arguments,
        })),
      },
    } as LlamaMessage;
  }
  return { role: message.role, content };
}

/** One compress call of `llamaindex-summary`: LlamaIndex's ChatSummaryMemoryBuffer, `chat` its LLM. */
export async function llamaindexSummary(
  chat: ChatModel,
  messages: ChatMessage[],
  opts: CompressOptions,
): Promise<CompressResult> {
  const { counter, budgetTokens } = opts;
  // Each converted message maps back to its input message (a Map keeps them in input order).
  const originals = new Map(messages.map((message) => [toLlama(message), message]));
  // The window besides the summary: system messages, the prefix, a last user message (kept after it).
  const last = messages.at(-1);
  const rest = [
    ...messages.filter((message) => message.role === "system"),
    { role: "system" as const, content: SUMMARY_PREFIX },
    ...(last?.role === "user" ? [last] : []),
  ];
  const maxTokens = Math.max(16, budgetTokens - counter.countMessages(rest));
  const log = new CallLog();
  const memory = new ChatSummaryMemoryBuffer({
    llm: programLlm(chat, log, { contextWindow: budgetTokens + maxTokens, maxTokens }),
    tokenizer: { encode: (text: string) => new Uint32Array(counter.countText(text)), decode: () => "" },
  });
  for (const message of originals.keys()) memory.put(message);
  const window = await memory.getMessages();
  return log.result(window.map((message): ChatMessage => {
    const original = originals.get(message);
    if (original !== undefined) return original;
    const role = message.role === "assistant" ? "assistant" : message.role === "user" ? "user" : "system";
    return { role, content: llamaText(message) };
  }));
}

/** The text of a LlamaIndex message's content (string, or its text parts joined). */
function llamaText(message: Pick<LlamaMessage, "content">): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((part) => part.type === "text" ? part.text : "").join("");
}

/** LlamaIndex's view of the program's chat model for one compress call (`max_tokens`: `metadata.maxTokens`). */
function programLlm(
  chat: ChatModel,
  log: CallLog,
  window: { contextWindow: number; maxTokens: number },
): LLM {
  const { contextWindow, maxTokens } = window;
  const metadata: LLMMetadata = {
    model: chat.model,
    temperature: 0,
    topP: 1,
    maxTokens,
    contextWindow,
    tokenizer: undefined,
    structuredOutput: false,
  };
  const chatOnce = async (params: { messages: LlamaMessage[]; stream?: boolean }): Promise<ChatResponse> => {
    if (params.stream) throw new Error("llamaindex: streaming is not offered by this program's LLM");
    const messages: ChatMessage[] = params.messages.map((message) => ({
      role: message.role === "assistant" ? "assistant" : message.role === "system" ? "system" : "user",
      content: llamaText(message),
    }));
    const reply = await log.complete(chat, messages, window.maxTokens);
    return { message: { role: "assistant", content: reply.content }, raw: null };
  };
  const complete = async (params: { prompt: unknown; stream?: boolean }) => {
    const reply = await chatOnce({ messages: [{ role: "user", content: String(params.prompt) }] });
    return { text: llamaText(reply.message), raw: null };
  };
  return { metadata, chat: chatOnce, complete } as unknown as LLM;
}
