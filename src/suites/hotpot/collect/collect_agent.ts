/**
 * Collection by an outside agent (`hotpot collect --agent exec:'CMD'`), so that the real Hermes Agent — or any
 * agent — reads the workspace with its own tools and its own system prompt.
 *
 * The protocol: the command (split shell-like, no shell) starts in the question's freshly written workspace
 * and gets one JSON object on stdin, `{question, files, titles, task, workspace, system_prompt?}` (`files`
 * relative to the workspace, `titles` their articles' titles, `task` the user task every collection mode
 * gives, `system_prompt` only with `--agent-system-prompt`: by default the agent uses its own, which is
 * recorded). It prints one Hermes-format session (`{"messages": [...]}`) on stdout and exits 0; the session
 * is imported like a Hermes session file. This program hashes the workspace before and after, so "files
 * unchanged" is verified. A failed start, non-zero exit, time-out or invalid session is that question's
 * invalid collection with the reason, never a crash.
 *
 * The environment is that of `exec:` engines ({@link agentEnvironment}): PATH, HOME, LANG, TMPDIR plus exactly
 * the variables `--agent-env NAME` passes; provider keys never, unless named.
 *
 * @module
 */
import { resolve } from "node:path";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { UsageError } from "../../../errors.ts";
import { minimalEngineEnv } from "../../../methods/engines/exec_engine.ts";
import { assertResponseIJson } from "../../../models/response_body.ts";
import { NotIJsonError } from "../../../store/canonical.ts";
import { strictUtf8 } from "../../../methods/engines/exec_engine.ts";
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

/**
 * What an outside agent's run gave: a collection, or the reason there is none; its raw stdout; and the model
 * calls it made through the loopback endpoint (none without one).
 */
export type AgentCollection = AgentRun & { calls: CallRecord[] };

/** What the agent process gave. */
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

/** How an outside agent is run. */
export interface AgentCommand {
  /** The command's words. */
  argv: readonly string[];
  /** Time limit per question (ms). */
  timeoutMs: number;
  /** A system prompt handed to the agent (`--agent-system-prompt`); by default it uses its own. */
  systemPrompt?: string;
  /** The variables `--agent-env` passes (name → value). */
  passedEnv: Readonly<Record<string, string>>;
  /**
   * The loopback chat endpoint (`--reference`/`--live` with `--agent`): each question's agent gets
   * `LLM_BASE_URL`, `LLM_MODEL` and a token of its own as `LLM_API_KEY` (these win over `--agent-env`), and
   * its calls through it are that question's recorded provider calls.
   */
  endpoint?: LoopbackProxy;
}

/**
 * The whole environment of an outside agent: PATH, HOME, LANG and TMPDIR of this process (as `exec:` engines
 * get), then the variables passed by name. The one place it is built.
 */
export function agentEnvironment(passed: Readonly<Record<string, string>>): Record<string, string> {
  return minimalEngineEnv(passed);
}

/** Runs the agent over a fresh workspace of `record` at `workspaceDir`, killed after its time limit. */
export async function collectWithAgent(
  record: HotpotRecord,
  workspaceDir: string,
  agent: AgentCommand,
): Promise<AgentCollection> {
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
    // The token dies with the question: nothing the agent left behind can call the model later.
    made = await call?.finish();
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
  // Under the outside-process policy: its own session and group, killed as a whole when it answers or
  // times out; complete when the agent itself exits, whatever its descendants hold.
  const outcome = await runOutsideProcess({
    argv,
    env: { ...agentEnvironment(agent.passedEnv), ...endpointEnv },
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
    return {
      ok: false,
      reason:
        `agent: the session on stdout is over its ${DEFAULT_MAX_OUTPUT_BYTES}-byte bound: cut off (killed)`,
      session_text: null,
    };
  }
  // Invalid UTF-8 is a named failure, never silently replaced by U+FFFD.
  const strict = strictUtf8(outcome.stdout);
  if (strict === null) {
    return { ok: false, reason: "agent: the session on stdout is not valid UTF-8", session_text: null };
  }
  const stdout = strict;
  // A session that carries a key of this run the agent was not given took it from this process: never kept.
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
    return {
      ok: false,
      reason: `agent: ${how}${tail ? `: ${tail}` : ""}`,
      session_text: stdout,
    };
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
