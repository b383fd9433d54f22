/**
 * The chat-model calls a framework library makes during one compress call: every exchange recorded, usage
 * added up, the first failure kept, so a library that swallows a failed call still fails the row.
 *
 * @module
 */
import type { ChatMessage } from "../../../models/messages.ts";
import type { CallRecord, ChatModel } from "../../../models/types.ts";
import { type CompressResult, type CompressUsage, EngineError } from "../engine.ts";

/** The calls of one compress call. */
export class CallLog {
  readonly records: CallRecord[] = [];
  readonly usage: CompressUsage = { input_tokens: 0, output_tokens: 0, calls: 0 };
  #failure: string | null = null;

  /** Sends `messages` to `chat` (at most `maxTokens` tokens back), records it; a failure is thrown. */
  async complete(chat: ChatModel, messages: ChatMessage[], maxTokens: number) {
    const result = await chat.complete({ messages, max_tokens: Math.max(1, Math.floor(maxTokens)) });
    this.records.push(result.record);
    this.usage.calls++;
    if (!result.ok) {
      this.#failure ??= result.error;
      throw new EngineError(`summary call failed: ${result.error}`, { records: [result.record] });
    }
    const { prompt_tokens: input_tokens, completion_tokens: output_tokens } = result.usage;
    this.usage.input_tokens += input_tokens;
    this.usage.output_tokens += output_tokens;
    return { content: result.content, input_tokens, output_tokens };
  }

  /** The compress result with the calls' usage and records; an {@link EngineError} when a call failed. */
  result(messages: ChatMessage[]): CompressResult {
    if (this.#failure !== null) {
      throw new EngineError(`summary call failed: ${this.#failure}`, { records: [...this.records] });
    }
    return { messages, usage: { ...this.usage }, records: [...this.records] };
  }
}
