/**
 * The live collector: a chat model reads the workspace through a real `read_file` tool (no compaction here).
 * @module
 */
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import type { CallRecord, ChatModel } from "../../../models/types.ts";
import { executeReadFile, READ_FILE_TOOL } from "../read_file.ts";
import { type Collection, openingMessages } from "./trajectory.ts";
import { createWorkspace, hashWorkspace } from "../workspace.ts";

/** Options of a live collection. */
export interface LiveCollectOptions {
  /** Maximum model calls (default 30). */
  maxSteps?: number;
  /** `max_tokens` of each model call (default 1024). */
  maxTokens?: number;
}

/**
 * A live trajectory of `record` in a fresh workspace: every tool call executed for real, until an answer
 * without a tool call (kept aside), `maxSteps` calls, or a model error.
 */
export async function collectLive(
  record: HotpotRecord,
  workspaceDir: string,
  chat: ChatModel,
  options: LiveCollectOptions = {},
): Promise<Collection> {
  const maxSteps = options.maxSteps ?? 30;
  const workspace = await createWorkspace(record.context, workspaceDir);
  const hashesBefore = await hashWorkspace(workspace);
  const messages: ChatMessage[] = openingMessages(record.question, workspace.files);
  const calls: CallRecord[] = [];
  let stop: Collection["stop_reason"] = "step_cap";
  let finalAnswer: string | null = null;
  let error: string | undefined;
  for (let step = 0; step < maxSteps; step++) {
    const result = await chat.complete({
      messages: structuredClone(messages),
      tools: [READ_FILE_TOOL],
      max_tokens: options.maxTokens ?? 1024,
    });
    calls.push(result.record);
    if (!result.ok) {
      stop = "model_error";
      error = result.error;
      break;
    }
    const toolCalls = result.tool_calls ?? [];
    if (toolCalls.length === 0) {
      stop = "answered";
      finalAnswer = result.content;
      break;
    }
    messages.push({
      role: "assistant",
      content: result.content === "" ? null : result.content,
      tool_calls: toolCalls,
    });
    for (const call of toolCalls) {
      const content = call.function.name === "read_file"
        ? await executeReadFile(workspaceDir, call.function.arguments)
        : JSON.stringify({ error: `unknown tool: ${call.function.name}` });
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  return {
    question_id: record.id,
    source: "live",
    messages,
    final_answer: finalAnswer,
    hashes_before: hashesBefore,
    hashes_after: await hashWorkspace(workspace),
    stop_reason: stop,
    ...(error === undefined ? {} : { error }),
    calls,
  };
}
