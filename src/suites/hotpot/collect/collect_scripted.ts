/**
 * The deterministic collector: reads every workspace file once, in order, with real `read_file` calls.
 * @module
 */
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import { executeReadFile } from "../read_file.ts";
import { type Collection, openingMessages } from "./trajectory.ts";
import { createWorkspace, hashWorkspace } from "../workspace.ts";

/** The id of the `index`-th (0-based) tool call of a scripted trajectory: `call_01`, `call_02`, … */
export function scriptedCallId(index: number): string {
  return `call_${String(index + 1).padStart(2, "0")}`;
}

/** Collects a scripted trajectory of `record` in a fresh workspace at `workspaceDir`. */
export async function collectScripted(record: HotpotRecord, workspaceDir: string): Promise<Collection> {
  const workspace = await createWorkspace(record.context, workspaceDir);
  const hashesBefore = await hashWorkspace(workspace);
  const messages: ChatMessage[] = openingMessages(record.question, workspace.files);
  for (const [index, file] of workspace.files.entries()) {
    const id = scriptedCallId(index);
    const args = JSON.stringify({ path: file.path });
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: args } }],
    });
    messages.push({ role: "tool", tool_call_id: id, content: await executeReadFile(workspaceDir, args) });
  }
  return {
    question_id: record.id,
    source: "scripted",
    messages,
    final_answer: null,
    hashes_before: hashesBefore,
    hashes_after: await hashWorkspace(workspace),
  };
}
