/**
 * The hotpot answer input every method shares: the original system prompt and task, the evidence, then the
 * evaluation question (the reference model recognises it by `"supporting_facts"`).
 *
 * @module
 */
import type { ChatMessage } from "../../../models/messages.ts";

/** The final user message: the evaluation question and the answer format. */
export function evaluationQuestion(question: string): string {
  return `Answer the question using only the evidence above.\nQuestion: ${question}\n\n` +
    `Reply with one JSON object and nothing else: {"answer": "<a short answer: a name, a number, yes or no>", ` +
    `"supporting_facts": [["<article title>", <sentence id>], ...]}. A file's line N is sentence id N-1 of the ` +
    `article; cite every sentence your answer relies on.`;
}

/** The head of the history every method keeps: the original system prompt and task (the first two messages). */
function historyHead(trajectory: readonly ChatMessage[]): ChatMessage[] {
  const [system, task] = trajectory;
  if (system?.role !== "system" || task?.role !== "user") {
    throw new Error("a trajectory starts with the system prompt and the user task");
  }
  return [system, task];
}

/** The `full` answer input: the whole public history, then the evaluation question. */
export function fullAnswerInput(trajectory: readonly ChatMessage[], question: string): ChatMessage[] {
  return [...trajectory, { role: "user", content: evaluationQuestion(question) }];
}

/** The compacted evidence block: kept excerpts (source order) and a summary, each optional. */
export function compactedEvidence(kept: string, summary: string): string {
  const parts: string[] = [];
  if (kept) parts.push(`Excerpts kept verbatim from the files you read:\n<excerpts>\n${kept}\n</excerpts>`);
  if (summary) parts.push(`Summary of the other evidence you read:\n<summary>\n${summary}\n</summary>`);
  if (parts.length === 0) parts.push("(No evidence was kept.)");
  return parts.join("\n\n");
}

/** A compacted answer input: the head, the framed compacted evidence, then the evaluation question. */
export function compactedAnswerInput(
  trajectory: readonly ChatMessage[],
  evidence: string,
  question: string,
): ChatMessage[] {
  return [
    ...historyHead(trajectory),
    { role: "user", content: `Your earlier file reads were compacted to fit the context.\n\n${evidence}` },
    { role: "user", content: evaluationQuestion(question) },
  ];
}
