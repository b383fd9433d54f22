/**
 * One question's collection (a `hotpot-collect` node's body): the trajectory by the chosen mode (scripted,
 * live, an imported Hermes session, an outside agent: each collector is here), then the collection checks.
 * @module
 */
import { type HotpotRecord, parseField } from "../../../data/hotpot_record.ts";
import { UsageError } from "../../../errors.ts";
import type { CallRecord, ChatModel } from "../../../models/types.ts";
import {
  checkCollection,
  type Collection,
  type CollectionCheck,
  initialSystemPrompt,
  openingMessages,
  taskMessage,
} from "./collection_checks.ts";
import { parseJson, parseJsonBytes } from "../../../core/json_read.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import { executeReadFile, READ_FILE_TOOL } from "../read_file.ts";
import { createWorkspace, hashWorkspace } from "../workspace.ts";
import { resolve } from "node:path";
import { minimalEngineEnv, strictUtf8 } from "../../../methods/engines/exec_engine.ts";
import { assertResponseIJson } from "../../../models/response_body.ts";
import { NotIJsonError } from "../../../store/canonical.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, runOutsideProcess } from "../../../methods/engines/outside_process.ts";
import { type LoopbackProxy, proxyEnvironment } from "../../../models/loopback_proxy.ts";
import { foundRunSecrets, stolenSecretReason } from "../../../models/credentials.ts";
import { splitCommandLine } from "../../../methods/engines/split_command.ts";
import { z } from "zod";

/** A Hermes session file, as far as this import reads it (other fields are ignored). */
const HermesSessionSchema = z.object({
  messages: z.array(z.looseObject({})).min(1),
  workspace_hashes_before: z.record(z.string(), z.string()).optional(),
  workspace_hashes_after: z.record(z.string(), z.string()).optional(),
});

/** Keeps only the public chat fields of one message and validates them. */
function publicMessage(raw: Record<string, unknown>, where: string): ChatMessage {
  const picked: Record<string, unknown> = {};
  for (const key of ["role", "content", "tool_calls", "tool_call_id", "name"]) {
    if (raw[key] !== undefined) picked[key] = raw[key];
  }
  if (!("content" in picked)) picked.content = null;
  if (Array.isArray(picked.tool_calls)) {
    picked.tool_calls = picked.tool_calls.map((call) => {
      if (typeof call !== "object" || call === null) return call;
      const c = call as Record<string, unknown>;
      const fn = (c.function ?? {}) as Record<string, unknown>;
      return { id: c.id, type: c.type ?? "function", function: { name: fn.name, arguments: fn.arguments } };
    });
  }
  return parseField(ChatMessageSchema.strict(), picked, where);
}

/** A parsed Hermes session as `record`'s trajectory; errors start with `source` and name index and field. */
export function importHermesSession(
  json: unknown,
  record: HotpotRecord,
  source = "hermes session",
): Collection {
  const session = parseField(HermesSessionSchema, json, source);
  const messages = session.messages.map((m, i) => publicMessage(m, `${source}: messages[${i}]`));
  let finalAnswer: string | null = null;
  const last = messages[messages.length - 1];
  if (last.role === "assistant" && (last.tool_calls ?? []).length === 0) {
    finalAnswer = last.content;
    messages.pop();
  }
  return {
    question_id: record.id,
    source: "hermes",
    messages,
    final_answer: finalAnswer,
    hashes_before: session.workspace_hashes_before ?? null,
    hashes_after: session.workspace_hashes_after ?? null,
  };
}

/** A Hermes session file's bytes as `record`'s trajectory; not JSON, or a bad field: a {@link UsageError}. */
export function importHermesSessionBytes(
  bytes: Uint8Array,
  record: HotpotRecord,
  source: string,
): Collection {
  let json: unknown;
  try {
    json = parseJsonBytes(bytes);
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(`${source}: not JSON (${error.message})`);
    throw error;
  }
  return importHermesSession(json, record, source);
}

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
    const call = mode.endpoint?.open();
    let outcome: AgentRun;
    let made: { records: CallRecord[] } | undefined;
    try {
      outcome = await runAgent(record, workspace, mode, call ? proxyEnvironment(mode.endpoint!, call) : {});
    } finally {
      made = await call?.finish(); // the token dies with the question: nothing left behind can call the model
    }
    // The agent's model calls through the loopback endpoint are this question's provider calls.
    const calls = made?.records ?? [];
    if (!outcome.ok) return invalidCollection(outcome.reason, outcome.session_text, calls);
    collection = { ...outcome.collection, calls };
    sessionText = outcome.session_text;
  } else {
    if (session === null) {
      return invalidCollection(`no session file ${record.id}.json in the sessions directory`, null);
    }
    collection = importHermesSessionBytes(session, record, `${record.id}.json`);
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

/** Collects a scripted trajectory of `record` in a fresh workspace at `workspaceDir`. */
export async function collectScripted(record: HotpotRecord, workspaceDir: string): Promise<Collection> {
  const workspace = await createWorkspace(record.context, workspaceDir);
  const hashesBefore = await hashWorkspace(workspace);
  const messages: ChatMessage[] = openingMessages(record.question, workspace.files);
  for (const [index, file] of workspace.files.entries()) {
    const id = `call_${String(index + 1).padStart(2, "0")}`; // call_01, call_02, …
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

/** A live trajectory: tool calls run for real until an answer (kept aside), `maxSteps` or a model error. */
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

const STDERR_TAIL_CHARS = 300;

/** What the agent process gave: a collection or the reason there is none, and its raw stdout. */
type AgentRun =
  | { ok: true; collection: Collection; session_text: string }
  | { ok: false; reason: string; session_text: string | null };

/** Parses `exec:COMMAND` into the command's words; anything else is a {@link UsageError}. */
export function parseAgentSpec(spec: string): string[] {
  if (!spec.startsWith("exec:")) {
    throw new UsageError(`--agent ${JSON.stringify(spec)}: expected exec:'COMMAND ARGS'`);
  }
  const argv = splitCommandLine(spec.slice("exec:".length));
  if (argv.length === 0) throw new UsageError(`--agent ${JSON.stringify(spec)}: empty command`);
  return argv;
}

/**
 * How an outside agent is run: per-question time limit (ms), `--agent-system-prompt` (default: its own),
 * `--agent-env` values, and the loopback endpoint (`LLM_BASE_URL`, `LLM_MODEL`, a per-question token as
 * `LLM_API_KEY`, winning over `--agent-env`) whose calls are the question's recorded calls.
 */
export interface AgentCommand {
  argv: readonly string[];
  timeoutMs: number;
  systemPrompt?: string;
  passedEnv: Readonly<Record<string, string>>;
  endpoint?: LoopbackProxy;
}

/** Runs the agent over a fresh workspace of `record` at `workspaceDir`, killed after its time limit. */
async function runAgent(
  record: HotpotRecord,
  workspaceDir: string,
  agent: AgentCommand,
  endpointEnv: Record<string, string>,
): Promise<AgentRun> {
  const { argv, timeoutMs, systemPrompt } = agent;
  const workspace = await createWorkspace(record.context, workspaceDir);
  const hashesBefore = await hashWorkspace(workspace);
  const request = {
    question: record.question,
    files: workspace.files.map((f) => f.path),
    titles: workspace.files.map((f) => f.title),
    task: taskMessage(record.question, workspace.files),
    workspace: resolve(workspaceDir),
    ...(systemPrompt !== undefined ? { system_prompt: systemPrompt } : {}),
  };
  const fail = (reason: string, session_text: string | null = null) => ({
    ok: false as const,
    reason,
    session_text,
  });
  // Its own process group, killed as a whole; complete when the agent itself exits.
  const outcome = await runOutsideProcess({
    argv,
    env: { ...minimalEngineEnv(agent.passedEnv), ...endpointEnv },
    stdin: new TextEncoder().encode(JSON.stringify(request)),
    timeoutMs,
    cwd: workspaceDir,
  });
  if (outcome.kind === "not-started") return fail(`agent: cannot start '${argv[0]}': ${outcome.message}`);
  if (outcome.kind === "timeout") return fail(`agent: timed out after ${timeoutMs} ms (killed)`);
  if (outcome.overflowed) {
    return fail(
      `agent: the session on stdout is over its ${DEFAULT_MAX_OUTPUT_BYTES}-byte bound: cut off (killed)`,
    );
  }
  const stdout = strictUtf8(outcome.stdout); // invalid UTF-8 is a named failure, never U+FFFD
  if (stdout === null) return fail("agent: the session on stdout is not valid UTF-8");
  // A key of this run the agent was not given was taken from this process: never kept.
  const stderr = new TextDecoder().decode(outcome.stderr);
  const stolen = foundRunSecrets(`${stdout}\n${stderr}`, Object.values(agent.passedEnv));
  if (stolen.length > 0) return fail(stolenSecretReason("agent", stolen));
  if (!outcome.success) {
    const tail = stderr.trim().slice(-STDERR_TAIL_CHARS);
    const how = outcome.signal !== null
      ? `was killed by ${outcome.signal}`
      : `exited with code ${outcome.code}`;
    return fail(`agent: ${how}${tail ? `: ${tail}` : ""}`, stdout);
  }
  let json: unknown;
  try {
    json = parseJson(stdout);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return fail(`agent: the session on stdout is not JSON (${error.message})`, stdout);
  }
  try {
    assertResponseIJson(json);
  } catch (error) {
    if (!(error instanceof NotIJsonError)) throw error;
    return fail(`agent: the session on stdout is not I-JSON: ${error.message}`);
  }
  let imported: Collection;
  try {
    imported = importHermesSession(json, record, "agent session");
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return fail(error.message, stdout);
  }
  return {
    ok: true,
    collection: {
      ...imported,
      source: "agent",
      hashes_before: hashesBefore,
      hashes_after: await hashWorkspace(workspace),
    },
    session_text: stdout,
  };
}
