/**
 * Summaries within a budget: ask for a summary in the space left (the request says "summary": the reference
 * model dispatches on it), check the complete answer input by exact count, retry shorter at most `maxRetries`
 * times. One that still does not fit, or was cut off at `max_tokens`, invalidates the condition.
 *
 * @module
 */
import type { CallRecord, ChatModel } from "../models/types.ts";
import type { ChatMessage } from "../models/messages.ts";

/** The outcome of {@link summarizeWithin}. */
export type SummaryOutcome =
  | { ok: true; summary: string; promptTokens: number; attempts: number; records: CallRecord[] }
  | { ok: false; reason: string; summary?: string; attempts: number; records: CallRecord[] };

/** What {@link summarizeWithin} needs: `space` is the first max_tokens, `promptTokens` counts the input. */
interface SummarizeRequest {
  chat: ChatModel;
  task: string;
  evidence: string;
  retained?: string;
  space: number;
  promptTokens: (summary: string) => number;
  /** The complete answer input may not exceed this. */
  limit: number;
  /** Length retries after the first request (protocol: 3). */
  maxRetries?: number;
}

/** Summarizes within the limit, retrying shorter when the result overflows. */
export async function summarizeWithin(request: SummarizeRequest): Promise<SummaryOutcome> {
  const records: CallRecord[] = [];
  const maxRetries = request.maxRetries ?? 3;
  let maxTokens = Math.floor(request.space);
  if (maxTokens < 1) {
    return {
      ok: false,
      reason: `no space left for a summary (${request.space} tokens)`,
      attempts: 0,
      records,
    };
  }
  let last: { summary: string; tokens: number; cut: boolean } | undefined;
  for (let attempt = 0; attempt <= maxRetries; attempt++) {
    const { task, evidence, retained } = request;
    const messages = summaryRequestMessages({ task, evidence, retained, maxTokens });
    const result = await request.chat.complete({ messages, max_tokens: maxTokens });
    records.push(result.record);
    if (!result.ok) {
      return { ok: false, reason: `summary call failed: ${result.error}`, attempts: attempt + 1, records };
    }
    const summary = result.content.trim();
    const tokens = request.promptTokens(summary);
    if (result.finish_reason === "length") {
      // The provider stopped the summary at max_tokens: it is cut off, so it is never used; ask for less.
      last = { summary, tokens, cut: true };
      maxTokens = Math.max(1, Math.floor(maxTokens * 0.8));
      continue;
    }
    if (tokens <= request.limit) {
      return { ok: true, summary, promptTokens: tokens, attempts: attempt + 1, records };
    }
    last = { summary, tokens, cut: false };
    const over = tokens - request.limit;
    maxTokens = Math.max(1, Math.min(maxTokens - over - 8, Math.floor(maxTokens * 0.9)));
  }
  const reason = last?.cut
    ? `the summary was still cut off at max_tokens after ${maxRetries} length retries`
    : `summary still over the ceiling after ${maxRetries} length retries (${last?.tokens} > ${request.limit})`;
  return { ok: false, reason, summary: last?.summary, attempts: maxRetries + 1, records };
}

/** System prompt of every summarization call. */
const SUMMARIZER_SYSTEM_PROMPT =
  "You compress an agent's working context. You keep every concrete fact that the task may need (names, " +
  "numbers, dates, identifiers, file names and line numbers) and drop repetition and routine text.";

/** One summarization request: the task, the evidence, last the instruction (naming any retained excerpts). */
export function summaryRequestMessages(input: {
  task: string;
  evidence: string;
  retained?: string;
  maxTokens: number;
}): ChatMessage[] {
  const retained = input.retained
    ? `These excerpts are already kept verbatim in the context; do not repeat them:\n<retained>\n${input.retained}\n</retained>\n\n`
    : "";
  return [
    { role: "system", content: SUMMARIZER_SYSTEM_PROMPT },
    { role: "user", content: `The agent's task:\n<task>\n${input.task}\n</task>` },
    { role: "user", content: `Evidence the agent gathered:\n<evidence>\n${input.evidence}\n</evidence>` },
    {
      role: "user",
      content:
        `${retained}Write a summary of the evidence for this task in at most ${input.maxTokens} tokens. ` +
        "Keep source names and line numbers next to the facts they support.",
    },
  ];
}
