/**
 * Between this program's OpenAI-layout messages and LangChain's message classes. Each message handed to
 * LangChain carries the id `m<N>` (its input index), so one it passes through unchanged maps back to the exact
 * input message; one it made itself (a summary) is converted from its fields.
 *
 * @module
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { type ChatMessage, toolCallArguments } from "../../../models/messages.ts";

/** One input message as a LangChain message with the id `m<index>`. */
export function toLangChain(message: ChatMessage, index: number): BaseMessage {
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

/** The input messages as LangChain messages, ids `m0`, `m1`, …. */
export function toLangChainAll(messages: readonly ChatMessage[]): BaseMessage[] {
  return messages.map((message, index) => toLangChain(message, index));
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
export function fromLangChain(message: BaseMessage, originals: readonly ChatMessage[]): ChatMessage {
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
export function inInputOrder(
  messages: readonly BaseMessage[],
  originals: readonly ChatMessage[],
): ChatMessage[] {
  const indexes = messages.map((message) => originalIndex(message, originals));
  if (indexes.includes(null)) return messages.map((message) => fromLangChain(message, originals));
  return (indexes as number[]).sort((a, b) => a - b).map((index) => originals[index]);
}
