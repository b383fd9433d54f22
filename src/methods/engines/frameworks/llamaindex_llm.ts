/**
 * A LlamaIndex LLM that is this program's chat model: `chat` goes through the run's chat client (the
 * reference model with `--reference`), recorded in a {@link CallLog}, with `max_tokens` its
 * `metadata.maxTokens` (which `ChatSummaryMemoryBuffer` requires). Streaming is not offered: the memory
 * never asks for it.
 *
 * @module
 */
import type { ChatMessage as LlamaMessage, ChatResponse, LLM, LLMMetadata } from "@llamaindex/core/llms";
import type { ChatMessage } from "../../../models/messages.ts";
import type { ChatModel } from "../../../models/types.ts";
import type { CallLog } from "./call_log.ts";

/** The text of a LlamaIndex message's content (string, or its text parts joined). */
export function llamaText(message: Pick<LlamaMessage, "content">): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((part) => part.type === "text" ? part.text : "").join("");
}

/** LlamaIndex's view of the program's chat model for one compress call. */
export function programLlm(
  chat: ChatModel,
  log: CallLog,
  window: { contextWindow: number; maxTokens: number },
): LLM {
  const metadata: LLMMetadata = {
    model: chat.model,
    temperature: 0,
    topP: 1,
    maxTokens: window.maxTokens,
    contextWindow: window.contextWindow,
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
  const llm = {
    metadata,
    chat: chatOnce,
    complete: async (params: { prompt: unknown; stream?: boolean }) => {
      const reply = await chatOnce({ messages: [{ role: "user", content: String(params.prompt) }] });
      return { text: llamaText(reply.message), raw: null };
    },
  };
  return llm as unknown as LLM;
}
