/**
 * Outside engines as processes: `exec:COMMAND ARGS` spawns the command (split shell-like, no shell),
 * writes `{messages, budget_tokens, current_tokens}` as JSON to its stdin and reads `{messages}` from its
 * stdout. A time limit kills the process. A non-zero exit, a time-out or bad output is an
 * {@link EngineError} naming the reason.
 *
 * The process gets a minimal environment ({@link minimalEngineEnv}): PATH, HOME, LANG and TMPDIR when
 * set, plus exactly the variables the caller passes (`--engine-env NAME`). Provider keys are never
 * inherited. The values passed (8 characters or longer) are redacted from whatever the engine writes back —
 * its window and its stderr — so an engine that echoes a key cannot put it into the run.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import { redact, redactValue } from "../../models/credentials.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { type CompressOptions, type CompressResult, type ContextEngine, EngineError } from "./engine.ts";
import { outsideRequest, parseOutsideReply } from "./outside_protocol.ts";
import { splitCommandLine } from "./split_command.ts";
import { runOutsideProcess } from "./outside_process.ts";

/** Characters of stderr quoted in a failure reason. */
const STDERR_TAIL_CHARS = 300;

/** The variables an outside engine inherits from this process, when set. */
export const INHERITED_ENV = ["PATH", "HOME", "LANG", "TMPDIR"] as const;

/** The environment of an outside engine: {@link INHERITED_ENV} from this process, then `extra`. */
export function minimalEngineEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** Options of {@link createExecEngine}. */
export interface ExecEngineOptions {
  /** Time limit of one call (ms). */
  timeoutMs: number;
  /** Variables passed on top of the minimal environment. */
  env?: Readonly<Record<string, string>>;
  /** The reported name; default `exec:COMMAND`. */
  name?: string;
  /** The words to run instead of splitting `command` (for commands this program builds itself). */
  argv?: string[];
}

/** An engine that runs `command` (a command line) once per compress call, killed after `timeoutMs`. */
export function createExecEngine(command: string, options: ExecEngineOptions): ContextEngine {
  const argv = options.argv ?? splitCommandLine(command);
  if (argv.length === 0) throw new UsageError(`engine 'exec:${command}': empty command`);
  const name = options.name ?? `exec:${command}`;
  const timeoutMs = options.timeoutMs;
  const env = minimalEngineEnv(options.env);
  // Values short enough to occur by chance (a port, a flag) are not treated as secrets.
  const secrets = Object.values(options.env ?? {}).filter((value) => value.length >= 8);
  return {
    kind: "outside",
    name,
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      const outcome = await runOutsideProcess({
        argv,
        env,
        stdin: new TextEncoder().encode(JSON.stringify(outsideRequest(messages, opts))),
        timeoutMs,
      });
      if (outcome.kind === "not-started") {
        throw new EngineError(`${name}: cannot start '${argv[0]}': ${outcome.message}`);
      }
      if (outcome.kind === "timeout") {
        throw new EngineError(`${name}: timed out after ${timeoutMs} ms (killed)`);
      }
      const decode = (bytes: Uint8Array) => redact(new TextDecoder().decode(bytes), secrets);
      if (!outcome.success) {
        const stderr = decode(outcome.stderr).trim();
        const tail = stderr.length > STDERR_TAIL_CHARS ? `…${stderr.slice(-STDERR_TAIL_CHARS)}` : stderr;
        const how = outcome.signal !== null
          ? `was killed by ${outcome.signal}`
          : `exited with code ${outcome.code}`;
        throw new EngineError(`${name}: ${how}${tail ? `: ${tail}` : ""}`);
      }
      return { messages: redactValue(parseOutsideReply(decode(outcome.stdout), name), secrets) };
    },
  };
}
