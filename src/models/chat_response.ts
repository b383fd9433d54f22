/**
 * The zod schema of an OpenAI-compatible chat completion response: what the chat client accepts as a
 * successful answer (extra fields pass). Anything else is a failed call with the reason.
 * @module
 */
import { z } from "zod";
import { ToolCallSchema } from "./messages.ts";

const Count = z.number().int().nonnegative();

const ChatUsageSchema = z.object({ prompt_tokens: Count, completion_tokens: Count, total_tokens: Count });

/** A chat completion response (only the fields the benchmark uses are checked). */
export const ChatCompletionResponseSchema = z.object({
  model: z.string().min(1),
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

/** A chat completion body validated, or why it is not one (the client retries it). */
export function chatCompletion(
  json: unknown,
): { ok: true; parsed: ChatCompletionResponse } | { ok: false; error: string } {
  const parsed = ChatCompletionResponseSchema.safeParse(json);
  if (parsed.success) return { ok: true, parsed: parsed.data };
  return {
    ok: false,
    error: `response does not match the chat completion schema: ${describeIssues(parsed.error)}`,
  };
}

/** What a chat completion answers, as the suites get it (the parse rule of docs/FORMAT.md). */
export interface ChatReply {
  content: string;
  tool_calls?: ChatCompletionResponse["choices"][number]["message"]["tool_calls"] & unknown[];
  usage: z.infer<typeof ChatUsageSchema>;
  model: string;
  finish_reason: string;
}

/** The reply of a validated response: its first choice (content null as "", finish reason null as "stop"). */
export function chatReply(parsed: ChatCompletionResponse): ChatReply {
  const choice = parsed.choices[0];
  const toolCalls = choice.message.tool_calls ?? undefined;
  const { prompt_tokens, completion_tokens, total_tokens } = parsed.usage;
  return {
    content: choice.message.content ?? "",
    ...(toolCalls && toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    usage: { prompt_tokens, completion_tokens, total_tokens },
    model: parsed.model,
    finish_reason: choice.finish_reason ?? "stop",
  };
}
