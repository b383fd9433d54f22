/**
 * One question's collection (a `hotpot-collect` node's body): the trajectory by the chosen mode, then the
 * collection checks; it stores the trajectory, system prompt and hash, the check, calls and agent stdout.
 * @module
 */
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { UsageError } from "../../../errors.ts";
import type { CallRecord, ChatModel } from "../../../models/types.ts";
import { type AgentCommand, collectWithAgent } from "./collect_agent.ts";
import { importHermesSession } from "./collect_hermes.ts";
import { collectLive } from "./collect_live.ts";
import { collectScripted } from "./collect_scripted.ts";
import { checkCollection, type CollectionCheck, initialSystemPrompt } from "./collection_checks.ts";
import type { Collection } from "./trajectory.ts";
import { parseJsonBytes } from "../../../core/json_read.ts";

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
