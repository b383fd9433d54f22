/**
 * Tool pairing of a message list: every assistant tool call answered by exactly one result right after it.
 * @module
 */
import type { ChatMessage } from "./messages.ts";

/** Why tool calls and results are not paired (index and call id), or null when every call has its one result. */
export function toolPairingProblem(messages: ChatMessage[]): string | null {
  let pending: Set<string> | null = null;
  let pendingAt = -1;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (id === undefined) return `message ${i}: tool result without tool_call_id`;
      if (pending === null || !pending.has(id)) {
        return `message ${i}: tool result for '${id}' does not answer a call of the assistant message before it`;
      }
      pending.delete(id);
      continue;
    }
    if (pending !== null && pending.size > 0) {
      return `message ${pendingAt}: tool call '${[...pending][0]}' has no result`;
    }
    pending = null;
    if (message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0) {
      const ids = message.tool_calls!.map((call) => call.id);
      if (new Set(ids).size !== ids.length) return `message ${i}: duplicate tool call ids`;
      pending = new Set(ids);
      pendingAt = i;
    }
  }
  if (pending !== null && pending.size > 0) {
    return `message ${pendingAt}: tool call '${[...pending][0]}' has no result`;
  }
  return null;
}
