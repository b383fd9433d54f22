/**
 * One question's collection (a `hotpot-collect` node's body): the trajectory by the chosen mode (the scripted
 * and live collectors are here), then the collection checks.
 * @module
 */
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { UsageError } from "../../../errors.ts";
import type { CallRecord, ChatModel } from "../../../models/types.ts";
import { type AgentCommand, collectWithAgent } from "./collect_agent.ts";
import { importHermesSession } from "./collect_hermes.ts";
import { checkCollection, type CollectionCheck, initialSystemPrompt } from "./collection_checks.ts";
import { type Collection, openingMessages } from "./trajectory.ts";
import { parseJsonBytes } from "../../../core/json_read.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import { executeReadFile, READ_FILE_TOOL } from "../read_file.ts";
import { createWorkspace, hashWorkspace } from "../workspace.ts";

/** How trajectories are collected: scripted, live, Hermes session files (`session:<id>`), an agent. */
export type CollectMode =
  | { kind: "scripted" }
  | { kind: "live"; chat: ChatModel; model: string }
  | { kind: "hermes" }
  | ({ kind: "agent"; command: string } & AgentCommand);

/** The run-source name of the Hermes session file of question `id`. */
export function sessionSourceName(id: string): string {
  return `session:${id}`;
}

/** What a question's collection gives its `hotpot-collect` node (`session_text`: an agent's raw stdout). */
interface CollectOutcome {
  outputs: {
    collection: Record<string, unknown> | null;
    check: CollectionCheck;
    session_text?: string | null;
  };
  requests: CallRecord[];
  status: "ok" | "invalid";
  reason?: string;
}

/** The outcome of a question whose collection produced no trajectory (with the model calls made on the way). */
function invalidCollection(
  reason: string,
  sessionText: string | null,
  calls: CallRecord[] = [],
): CollectOutcome {
  return {
    outputs: {
      collection: null,
      check: { valid: false, reason, files_unchanged: "not verifiable" },
      ...(sessionText !== null ? { session_text: sessionText } : {}),
    },
    requests: calls,
    status: "invalid",
    reason,
  };
}

/** Collects and checks `record`'s trajectory; `session`: its raw Hermes session file (or null). */
export async function collectQuestion(
  mode: CollectMode,
  record: HotpotRecord,
  workspace: string,
  session: Uint8Array | null,
): Promise<CollectOutcome> {
  let collection: Collection;
  let sessionText: string | null = null;
  if (mode.kind === "scripted") collection = await collectScripted(record, workspace);
  else if (mode.kind === "live") collection = await collectLive(record, workspace, mode.chat);
  else if (mode.kind === "agent") {
    const outcome = await collectWithAgent(record, workspace, mode);
    if (!outcome.ok) return invalidCollection(outcome.reason, outcome.session_text, outcome.calls);
    // The agent's model calls through the loopback endpoint are this question's provider calls.
    collection = { ...outcome.collection, calls: outcome.calls };
    sessionText = outcome.session_text;
  } else {
    if (session === null) {
      return invalidCollection(`no session file ${record.id}.json in the sessions directory`, null);
    }
    let json: unknown;
    try {
      json = parseJsonBytes(session);
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new UsageError(`${record.id}.json: not JSON (${error.message})`);
      }
      throw error;
    }
    collection = importHermesSession(json, record, `${record.id}.json`);
  }
  const check = checkCollection(collection, record);
  const { calls, ...stored } = collection;
  return {
    outputs: {
      collection: { ...stored, system_prompt: initialSystemPrompt(collection.messages) },
      check,
      ...(mode.kind === "agent" ? { session_text: sessionText } : {}),
    },
    requests: calls ?? [],
    status: check.valid ? "ok" : "invalid",
    ...(check.valid ? {} : { reason: check.reason }),
  };
}

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
