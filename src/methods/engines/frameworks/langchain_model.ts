/**
 * A LangChain chat model that is this program's chat model: every call LangChain makes goes through the
 * run's chat client (the reference model with `--reference`) and is recorded in a {@link CallLog}, with
 * `max_tokens` fixed by the engine. No LangChain retries (the client has its own policy).
 *
 * @module
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { ChatModel } from "../../../models/types.ts";
import type { CallLog } from "./call_log.ts";
import { fromLangChain } from "./langchain_messages.ts";

/** LangChain's view of the program's chat model for one compress call. */
export class ProgramChatModel extends BaseChatModel {
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
