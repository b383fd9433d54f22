/**
 * Zod schemas of the request bodies the reference server accepts. Unknown fields pass (OpenAI clients send
 * many), known fields are checked; a failure is answered with HTTP 400 naming the field.
 *
 * @module
 */
import { z } from "zod";
import { ChatMessageSchema, ToolDefinitionSchema } from "../messages.ts";

/** A chat completion request as the reference server reads it. */
export const ReferenceChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
  tools: z.array(ToolDefinitionSchema).optional(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stream: z.literal(false).optional(),
});

/** A System One request as the reference server reads it. */
export const ReferenceSystemOneRequestSchema = z.looseObject({
  model: z.string().min(1),
  state: z.string(),
  questions: z.array(z.object({
    type: z.literal("noul"),
    instructions: z.string(),
    criteria: z.string().optional(),
  })),
});
