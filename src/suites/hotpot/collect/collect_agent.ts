/**
 * Collection by an outside agent (`hotpot collect --agent exec:'CMD'`): the command starts in the question's
 * fresh workspace with `{question, files, titles, task, workspace, system_prompt?}` on stdin and prints one
 * Hermes-format session; the workspace is hashed before and after. Any failure is that question's invalid
 * collection. Its environment is an `exec:` engine's plus exactly the `--agent-env` variables.
 * @module
 */
import { resolve } from "node:path";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { UsageError } from "../../../errors.ts";
import { minimalEngineEnv, strictUtf8 } from "../../../methods/engines/exec_engine.ts";
import { assertResponseIJson } from "../../../models/response_body.ts";
import { NotIJsonError } from "../../../store/canonical.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, runOutsideProcess } from "../../../methods/engines/outside_process.ts";
import { type LoopbackProxy, proxyEnvironment } from "../../../models/loopback_proxy.ts";
import { foundRunSecrets, stolenSecretReason } from "../../../models/credentials.ts";
import type { CallRecord } from "../../../models/types.ts";
import { splitCommandLine } from "../../../methods/engines/split_command.ts";
import { importHermesSession } from "./collect_hermes.ts";
import { type Collection, taskMessage } from "./trajectory.ts";
import { createWorkspace, hashWorkspace } from "../workspace.ts";
import { parseJson } from "../../../core/json_read.ts";

/** Characters of the agent's stderr quoted in a failure reason. */
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
export async function collectWithAgent(
  record: HotpotRecord,
  workspaceDir: string,
  agent: AgentCommand,
): Promise<AgentRun & { calls: CallRecord[] }> {
  const call = agent.endpoint?.open();
  let outcome: AgentRun;
  let made: { records: CallRecord[] } | undefined;
  try {
    outcome = await runAgent(
      record,
      workspaceDir,
      agent,
      call ? proxyEnvironment(agent.endpoint!, call) : {},
    );
  } finally {
    made = await call?.finish(); // the token dies with the question: nothing left behind can call the model
  }
  return { ...outcome, calls: made?.records ?? [] };
}

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
  // Its own process group, killed as a whole; complete when the agent itself exits.
  const outcome = await runOutsideProcess({
    argv,
    env: { ...minimalEngineEnv(agent.passedEnv), ...endpointEnv },
    stdin: new TextEncoder().encode(JSON.stringify(request)),
    timeoutMs,
    cwd: workspaceDir,
  });
  if (outcome.kind === "not-started") {
    return { ok: false, reason: `agent: cannot start '${argv[0]}': ${outcome.message}`, session_text: null };
  }
  if (outcome.kind === "timeout") {
    return { ok: false, reason: `agent: timed out after ${timeoutMs} ms (killed)`, session_text: null };
  }
  if (outcome.overflowed) {
    const reason =
      `agent: the session on stdout is over its ${DEFAULT_MAX_OUTPUT_BYTES}-byte bound: cut off (killed)`;
    return { ok: false, reason, session_text: null };
  }
  const stdout = strictUtf8(outcome.stdout); // invalid UTF-8 is a named failure, never U+FFFD
  if (stdout === null) {
    return { ok: false, reason: "agent: the session on stdout is not valid UTF-8", session_text: null };
  }
  // A key of this run the agent was not given was taken from this process: never kept.
  const stolen = foundRunSecrets(
    `${stdout}\n${new TextDecoder().decode(outcome.stderr)}`,
    Object.values(agent.passedEnv),
  );
  if (stolen.length > 0) {
    return { ok: false, reason: stolenSecretReason("agent", stolen), session_text: null };
  }
  const stderr = new TextDecoder().decode(outcome.stderr);
  if (!outcome.success) {
    const tail = stderr.trim().slice(-STDERR_TAIL_CHARS);
    const how = outcome.signal !== null
      ? `was killed by ${outcome.signal}`
      : `exited with code ${outcome.code}`;
    return { ok: false, reason: `agent: ${how}${tail ? `: ${tail}` : ""}`, session_text: stdout };
  }
  let json: unknown;
  try {
    json = parseJson(stdout);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return {
      ok: false,
      reason: `agent: the session on stdout is not JSON (${error.message})`,
      session_text: stdout,
    };
  }
  try {
    assertResponseIJson(json);
  } catch (error) {
    if (!(error instanceof NotIJsonError)) throw error;
    return {
      ok: false,
      reason: `agent: the session on stdout is not I-JSON: ${error.message}`,
      session_text: null,
    };
  }

  let imported: Collection;
  try {
    imported = importHermesSession(json, record, "agent session");
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { ok: false, reason: error.message, session_text: stdout };
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
