/**
 * The zod schema of an OpenAI-compatible chat completion response: what the chat client accepts as a
 * successful answer. Anything else (no choices, no message, no usage) is a failed call with the reason.
 *
 * @module
 */
import { z } from "zod";
import { ToolCallSchema } from "./messages.ts";

const Count = z.number().int().nonnegative();

/** Token usage as an OpenAI-compatible server reports it (extra fields allowed). */
export const ChatUsageSchema = z.object({
  prompt_tokens: Count,
  completion_tokens: Count,
  total_tokens: Count,
});

/** A chat completion response (only the fields the benchmark uses are checked; extra fields pass). */
export const ChatCompletionResponseSchema = z.object({
  /** The answering model (recorded in the call record). */
  model: z.string().min(1),
  /** The backend configuration that answered, when the server says (recorded in the call record). */
  system_fingerprint: z.string().nullish(),
  choices: z.array(z.object({
    message: z.object({
      role: z.literal("assistant"),
      content: z.string().nullable(),
      tool_calls: z.array(ToolCallSchema).nullish(),
    }),
    finish_reason: z.string().nullable(),
  })).min(1),
  usage: ChatUsageSchema,
});

/** A validated chat completion response. */
export type ChatCompletionResponse = z.infer<typeof ChatCompletionResponseSchema>;

/** Describes zod issues in one line: `path: message; path: message` (at most five). */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    return `${path}: ${issue.message}`;
  });
  if (error.issues.length > 5) parts.push(`and ${error.issues.length - 5} more`);
  return parts.join("; ");
}
