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

/**
 * A collected trajectory of one question: its messages without the final answer (kept aside, or null), the
 * workspace's SHA-256 per path before and after (null: "files unchanged" not verifiable), and for live
 * collections why the agent stopped, its model error and the provider calls made.
 */
export interface Collection {
  question_id: string;
  source: "scripted" | "live" | "hermes" | "agent";
  messages: ChatMessage[];
  final_answer: string | null;
  hashes_before: Record<string, string> | null;
  hashes_after: Record<string, string> | null;
  stop_reason?: "answered" | "step_cap" | "model_error";
  error?: string;
  calls?: CallRecord[];
}
