/**
 * A collected hotpot trajectory: a chat in which an agent reads a question's ten article files; the system
 * prompt and user task are fixed here; the final answer is kept aside, never evaluated.
 * @module
 */
import type { ChatMessage } from "../../../models/messages.ts";
import type { CallRecord } from "../../../models/types.ts";
import type { WorkspaceFile } from "../workspace.ts";

/** The system prompt of every collected trajectory. */
export const SYSTEM_PROMPT =
  "You are a careful research assistant working in a workspace of text files. Use the read_file tool to " +
  "read files; each result shows the file's lines as 'LINE_NUMBER|TEXT'. Base your answers only on what " +
  "the files say.";

/** The user task of a question: answer it from the files, which are listed as `- path` lines. */
export function taskMessage(
  question: string,
  files: readonly Pick<WorkspaceFile, "path" | "title">[],
): string {
  return [
    "Answer the following question using the files in the workspace. Read every file completely with " +
    "read_file before you answer.",
    "",
    `Question: ${question}`,
    "",
    "Files:",
    ...files.map((f) => `- ${f.path} (article: ${f.title})`),
  ].join("\n");
}

/** The opening messages of a trajectory: system prompt and user task. */
export function openingMessages(
  question: string,
  files: readonly Pick<WorkspaceFile, "path" | "title">[],
): ChatMessage[] {
  return [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: taskMessage(question, files) },
  ];
}

/** How a trajectory was collected: our scripted reader, our live agent loop, imported Hermes sessions, or an
 * outside agent run through `--agent exec:CMD`. */
export type CollectionSource = "scripted" | "live" | "hermes" | "agent";

/** A collected trajectory of one question. */
export interface Collection {
  question_id: string;
  source: CollectionSource;
  /** System prompt, task, then assistant tool calls and tool results; the final answer excluded. */
  messages: ChatMessage[];
  /** The agent's final answer, kept aside (null when there was none). */
  final_answer: string | null;
  /** SHA-256 per workspace path before and after; null: not shown ("files unchanged" not verifiable). */
  hashes_before: Record<string, string> | null;
  hashes_after: Record<string, string> | null;
  /** Why the agent stopped (live collections). */
  stop_reason?: "answered" | "step_cap" | "model_error";
  /** The model error, when `stop_reason` is `model_error`. */
  error?: string;
  /** Provider calls made (live collections). */
  calls?: CallRecord[];
}
