/**
 * The `+recovery` arm: every QA and probe question asked again with the engine's recall tools offered (served
 * by the instance that compacted), for up to `rounds` tool rounds, then once without tools; scored as the
 * window-alone arm's. A call to a tool not offered, or with arguments not a JSON object, gets an error result.
 * @module
 */
import type { RecallSession } from "../../methods/engines/engine.ts";
import { type ChatMessage, type ToolCall, toolCallArguments } from "../../models/messages.ts";
import type { CallRecord, ChatModel } from "../../models/types.ts";
import { type AskOutcome, type QaItem, qaMessages, type QaRecall, qaRecallWith } from "./metrics.ts";

/** Default tool rounds per question (as in Hermes' compression eval: one round-trip). */
export const DEFAULT_RECOVERY_ROUNDS = 1;

/** The recovery arm's QA recall, with its tool traffic. */
export interface RecoveryRecall extends QaRecall {
  tool_calls: number;
  /** Tool calls that gave an error instead of a result. */
  tool_errors: number;
}

/** Asks every question with the recall tools offered. */
export async function recoveryRecall(
  chat: ChatModel,
  window: ChatMessage[],
  items: QaItem[],
  recall: RecallSession,
  rounds: number,
  concurrency = 4,
): Promise<RecoveryRecall> {
  let toolCalls = 0;
  let toolErrors = 0;
  const offered = new Set(recall.tools.map((tool) => tool.function.name));
  const serve = async (call: ToolCall): Promise<string> => {
    toolCalls++;
    const args = toolCallArguments(call.function.arguments);
    const reply = !offered.has(call.function.name)
      ? { ok: false as const, error: `no tool '${call.function.name}' is offered` }
      : args === null
      ? { ok: false as const, error: "the arguments are not a JSON object" }
      : await recall.call(call.function.name, args);
    if (reply.ok) return reply.content;
    toolErrors++;
    return `error: ${reply.error}`;
  };
  const ask = async (item: QaItem): Promise<AskOutcome> => {
    const messages = qaMessages(window, item.question);
    const usage = { input_tokens: 0, output_tokens: 0, calls: 0 };
    const records: CallRecord[] = [];
    for (let round = 0; round <= rounds; round++) {
      const withTools = round < rounds;
      const result = await chat.complete({
        messages,
        max_tokens: 64,
        ...(withTools ? { tools: recall.tools } : {}),
      });
      records.push(result.record);
      usage.calls++;
      if (!result.ok) return { ok: false, error: result.error, usage, records };
      usage.input_tokens += result.usage.prompt_tokens;
      usage.output_tokens += result.usage.completion_tokens;
      const calls = result.tool_calls ?? [];
      if (!withTools || calls.length === 0) return { ok: true, content: result.content, usage, records };
      messages.push({
        role: "assistant",
        content: result.content === "" ? null : result.content,
        tool_calls: calls,
      });
      for (const call of calls) {
        messages.push({ role: "tool", tool_call_id: call.id, content: await serve(call) });
      }
    }
    return { ok: false, error: "no reply after the tool rounds", usage, records };
  };
  const recallOut = await qaRecallWith(items, ask, concurrency);
  return { ...recallOut, tool_calls: toolCalls, tool_errors: toolErrors };
}
