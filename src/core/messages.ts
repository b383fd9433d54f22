/**
 * OpenAI-format chat messages: the one message shape every suite, method, engine and model client shares.
 * @module
 */
import { z } from "zod";
import { parseJson } from "./json_read.ts";

/** A function tool call made by an assistant message. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** One chat message in the OpenAI layout (only the public chat fields). */
export const ChatMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** A function tool definition as sent in a chat completion request. */
export const ToolDefinitionSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

/** Token usage as an OpenAI-compatible server reports it. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A tool call's `arguments` text as the JSON object it should be; null when it is not JSON or not an object. */
export function toolCallArguments(text: string): Record<string, unknown> | null {
  try {
    const value = parseJson(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? value as Record<string, unknown>
      : null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}
