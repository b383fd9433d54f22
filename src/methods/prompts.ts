/**
 * The prompts the compaction methods send. The summarizer prompt names the space it may use; the reference
 * model recognises a summary request by the word "summary" in the last user message.
 *
 * @module
 */
import type { ChatMessage } from "../models/messages.ts";

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
