/**
 * Zod schemas of the request bodies the reference server accepts: known fields checked (a failure is a 400
 * naming the field), unknown ones pass, content given as text parts read as their joined text.
 * @module
 */
import { z } from "zod";
import { type ChatMessage, ChatMessageSchema, ToolCallSchema, ToolDefinitionSchema } from "../messages.ts";

/** Message content as clients send it: a string, null, or text parts (joined; other part types refused). */
const ContentSchema = z.union([
  z.string(),
  z.null(),
  z.array(z.looseObject({ type: z.literal("text"), text: z.string() })).transform((parts) =>
    parts.map((part) => part.text).join("")
  ),
]);

/** One request message: the public chat fields (others dropped), content normalized to a string or null. */
const RequestMessageSchema = z.looseObject({
  role: ChatMessageSchema.shape.role,
  content: ContentSchema.optional(),
  tool_calls: z.array(ToolCallSchema).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
}).transform((message): ChatMessage => ({
  role: message.role,
  content: message.content ?? null,
  ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
  ...(typeof message.tool_call_id === "string" ? { tool_call_id: message.tool_call_id } : {}),
  ...(typeof message.name === "string" ? { name: message.name } : {}),
}));

/** `tool_choice` as OpenAI-compatible servers take it. */
export const ToolChoiceSchema = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1) }) }),
]);

/** A chat completion request as the reference server reads it. */
export const ReferenceChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(RequestMessageSchema).min(1),
  tools: z.array(ToolDefinitionSchema).nullish(),
  tool_choice: ToolChoiceSchema.nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

/** A System One request as the reference server reads it. */
export const ReferenceSystemOneRequestSchema = z.looseObject({
  model: z.string().min(1),
  state: z.string(),
  questions: z.array(
    z.object({ type: z.literal("noul"), instructions: z.string(), criteria: z.string().optional() }),
  ),
});
