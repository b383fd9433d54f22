/**
 * `exec+tools:COMMAND ARGS`: one process per compaction that stays alive after its window to serve the recall
 * tools it offers, one JSON line per call; a failed tool call is that call's error.
 *
 * @module
 */
import { foundRunSecrets, redact, stolenSecretReason } from "../../models/credentials.ts";
import type { ChatMessage } from "../../models/messages.ts";
import {
  type CompressOptions,
  type CompressResult,
  type ContextEngine,
  EngineError,
  type RecallReply,
  type RecallSession,
} from "./engine.ts";
import {
  execCommand,
  type ExecEngineOptions,
  openEndpointCall,
  readOutsideReply,
  withRunSecrets,
} from "./exec_engine.ts";
import { outsideRequest, parseRecallReply, recallToolRequest } from "./outside_protocol.ts";
import { type OutsideSession, sessionEnding, startOutsideSession, unreadReason } from "./outside_session.ts";
import { DEFAULT_MAX_OUTPUT_BYTES } from "./outside_process.ts";

/** The most bytes of one tool reply line. */
export const MAX_TOOL_LINE_BYTES = 1024 * 1024;

/** An engine that runs `command` as a session per compress call, serving the recall tools it offers. */
export function createExecRecallEngine(command: string, options: ExecEngineOptions): ContextEngine {
  const { argv, name, env, secrets: baseSecrets } = execCommand("exec+tools", command, options);
  const { timeoutMs } = options;
  return {
    kind: "outside",
    name,
    timing: "one-shot",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      // The endpoint token lives until the window's reply; recall tools answer from the engine's own store.
      const call = openEndpointCall(options, baseSecrets);
      const secrets = call.hidden;
      const finishCall = async () => (await call.finish())?.records ?? [];
      const failure = async (session: OutsideSession, what: string) => {
        await session.close(0); // a failed call is not waited for
        const ending = sessionEnding(session, withRunSecrets(secrets));
        return new EngineError(`${name}: ${what}${ending}`, { records: await finishCall() });
      };
      const started = await startOutsideSession({ argv, env: { ...env, ...call.env } });
      if ("notStarted" in started) {
        const records = await finishCall();
        throw new EngineError(`${name}: cannot start '${argv[0]}': ${started.notStarted}`, { records });
      }
      const { session } = started;
      if (!await session.writeLine(JSON.stringify(outsideRequest(messages, opts)))) {
        throw await failure(session, "stopped reading its request");
      }
      const read = await session.readLine(timeoutMs, options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
      if (read.kind !== "line" && read.kind !== "end") {
        throw await failure(session, unreadReason(read, timeoutMs));
      }
      if (read.kind === "end") {
        // It wrote its reply without a line break and exited: fine, if it exited well.
        await session.close();
        const status = session.exitStatus();
        if (status !== null && !status.success) throw await failure(session, "exited before replying");
      }
      const text = read.kind === "end" ? read.rest : read.text;
      const made = await call.finish();
      const records = made?.records ?? [];
      let reply;
      try {
        reply = readOutsideReply(text, secrets, name, records);
      } catch (error) {
        await session.close();
        throw error;
      }
      const measured = made ? { usage: made.usage, records } : {};
      if (reply.tools.length === 0 || read.kind === "end") {
        await session.close();
        return { messages: reply.messages, ...measured };
      }
      const recall = recallOverSession(session, reply.tools, timeoutMs, name, secrets);
      return { messages: reply.messages, ...measured, recall };
    },
  };
}

/** The recall tools served by a live session, one call at a time. */
function recallOverSession(
  session: OutsideSession,
  tools: RecallSession["tools"],
  timeoutMs: number,
  name: string,
  secrets: string[],
): RecallSession {
  let queue: Promise<unknown> = Promise.resolve();
  let broken: string | null = null;
  const one = async (tool: string, args: Record<string, unknown>): Promise<RecallReply> => {
    if (broken !== null) return { ok: false, error: broken };
    if (!await session.writeLine(JSON.stringify(recallToolRequest(tool, args)))) {
      broken = `${name}: the engine no longer reads tool calls`;
      return { ok: false, error: broken };
    }
    const read = await session.readLine(timeoutMs, MAX_TOOL_LINE_BYTES);
    const stolen = read.kind === "line" ? foundRunSecrets(read.text, secrets) : [];
    if (read.kind === "line" && stolen.length === 0) {
      return parseRecallReply(redact(read.text, secrets), name);
    }
    // A failed read or a stolen secret ends the session: every later call gets the same error.
    broken = read.kind === "line"
      ? stolenSecretReason(`${name}: tool reply`, stolen)
      : read.kind === "timeout"
      ? `${name}: tool call timed out after ${timeoutMs} ms`
      : read.kind === "too_long"
      ? `${name}: tool reply over ${read.limit} bytes`
      : read.kind === "bad_utf8"
      ? `${name}: tool reply is not valid UTF-8`
      : `${name}: the engine exited during a tool call`;
    await session.close();
    return { ok: false, error: broken };
  };
  return {
    tools,
    call(tool, args) {
      const next = queue.then(() => one(tool, args));
      queue = next.catch(() => {});
      return next;
    },
    close: () => session.close(),
  };
}
