/**
 * Outside engines as processes: `exec:COMMAND ARGS` (split shell-like, no shell) gets the request as JSON on
 * stdin and answers `{messages}` on stdout. It sees a minimal environment ({@link minimalEngineEnv}: never a
 * provider key); passed values are redacted from what it writes back.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import {
  foundRunSecrets,
  redact,
  redactValue,
  runSecrets,
  stolenSecretReason,
} from "../../models/credentials.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { type CompressOptions, type CompressResult, type ContextEngine, EngineError } from "./engine.ts";
import { type OutsideReply, outsideRequest, parseOutsideReplyWithTools } from "./outside_protocol.ts";
import { splitCommandLine } from "./split_command.ts";
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  type OutsideProcessOutcome,
  runOutsideProcess,
} from "./outside_process.ts";
import {
  type EndpointVariables,
  type LoopbackProxy,
  type ProxyCall,
  proxyEnvironment,
} from "../../models/loopback_proxy.ts";

const STDERR_TAIL_CHARS = 300;

/** The end of an outside engine's (redacted, trimmed) stderr a failure reason quotes. */
export function stderrTail(stderr: string): string {
  return stderr.length > STDERR_TAIL_CHARS ? `…${stderr.slice(-STDERR_TAIL_CHARS)}` : stderr;
}

/**
 * Reads `command` of an engine `prefix:command`: its words, name, environment and the passed values to redact
 * from what it writes back; an empty command is a {@link UsageError}.
 */
export function execCommand(prefix: string, command: string, options: ExecEngineOptions) {
  const argv = options.argv ?? splitCommandLine(command);
  if (argv.length === 0) throw new UsageError(`engine '${prefix}:${command}': empty command`);
  return {
    argv,
    name: options.name ?? `${prefix}:${command}`,
    env: minimalEngineEnv({ ...options.plainEnv, ...options.env }),
    // Values short enough to occur by chance (a port, a flag) are not treated as secrets.
    secrets: Object.values(options.env ?? {}).filter((value) => value.length >= 8),
  };
}

/** The environment of an outside engine: PATH, HOME, LANG and TMPDIR of this process when set, then `extra`. */
export function minimalEngineEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const names = ["PATH", "HOME", "LANG", "TMPDIR"].filter((name) => Deno.env.has(name));
  return { ...Object.fromEntries(names.map((name) => [name, Deno.env.get(name)!])), ...extra };
}

/** Options of {@link createExecEngine}. */
export interface ExecEngineOptions {
  timeoutMs: number;
  /** Passed on top of the minimal environment (values of 8 or more characters are redacted from replies). */
  env?: Readonly<Record<string, string>>;
  /** Passed variables that are not secrets (a checkout's path): never redacted. */
  plainEnv?: Readonly<Record<string, string>>;
  /** The reported name; default `exec:COMMAND`. */
  name?: string;
  /** The words to run instead of splitting `command` (for commands this program builds itself). */
  argv?: string[];
  /** The loopback chat endpoint: each call gets a token of its own; its model calls are the call's records. */
  endpoint?: LoopbackProxy;
  /** The names the endpoint is handed under (default `LLM`; a user's `exec:` engine gets `OPENAI`). */
  endpointVariables?: EndpointVariables;
  /** The most bytes of output read from one call (default 8 MiB); past it the call is killed and fails. */
  maxOutputBytes?: number;
}

/** An engine that runs `command` (a command line) once per compress call, killed after `timeoutMs`. */
export function createExecEngine(command: string, options: ExecEngineOptions): ContextEngine {
  const { argv, name, env, secrets } = execCommand("exec", command, options);
  const timeoutMs = options.timeoutMs;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return {
    kind: "outside",
    name,
    timing: "one-shot",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      const call = openEndpointCall(options, secrets);
      const hidden = call.hidden;
      let outcome: OutsideProcessOutcome;
      let made: Awaited<ReturnType<typeof call.finish>>;
      try {
        outcome = await runOutsideProcess({
          argv,
          env: { ...env, ...call.env },
          // One line (a one-shot engine may read one line or to the end of stdin; stdin is then closed).
          stdin: new TextEncoder().encode(`${JSON.stringify(outsideRequest(messages, opts))}\n`),
          timeoutMs,
          maxOutputBytes,
        });
      } finally {
        // The token dies with the call: nothing it left behind can call the model later.
        made = await call.finish();
      }
      const records = made?.records ?? [];
      const fail = (reason: string) => new EngineError(reason, { records });
      if (outcome.kind === "not-started") {
        throw fail(`${name}: cannot start '${argv[0]}': ${outcome.message}`);
      }
      if (outcome.kind === "timeout") throw fail(`${name}: timed out after ${timeoutMs} ms (killed)`);
      if (outcome.overflowed) {
        throw fail(
          `${name}: output over its ${maxOutputBytes}-byte bound (--max-response-bytes): cut off (killed)`,
        );
      }
      if (!outcome.success) {
        const tail = stderrTail(
          redact(new TextDecoder().decode(outcome.stderr), withRunSecrets(hidden)).trim(),
        );
        const how = outcome.signal !== null
          ? `was killed by ${outcome.signal}`
          : `exited with code ${outcome.code}`;
        throw fail(`${name}: ${how}${tail ? `: ${tail}` : ""}`);
      }
      // Invalid UTF-8 is a named failure, never silently replaced by U+FFFD.
      const text = strictUtf8(outcome.stdout);
      if (text === null) throw fail(`${name}: output is not valid UTF-8`);
      const reply = readOutsideReply(text, hidden, name, records);
      // Its own compress time, if reported, is kept; the row stays one-shot (process start is in the round trip).
      const own = reply.compressMs !== undefined ? { engineMs: reply.compressMs } : {};
      return made
        ? { messages: reply.messages, usage: made.usage, records, ...own }
        : { messages: reply.messages, ...own };
    },
  };
}

/**
 * One call's own token on the loopback endpoint, when there is one: its variables, the values to hide from
 * what the engine says, and `finish` (idempotent), which ends the token and gives the calls made through it.
 */
export function openEndpointCall(options: ExecEngineOptions, secrets: string[]) {
  const call = options.endpoint?.open();
  let made: Awaited<ReturnType<ProxyCall["finish"]>> | undefined;
  return {
    env: call ? proxyEnvironment(options.endpoint!, call, options.endpointVariables) : undefined,
    hidden: call ? [...secrets, call.token] : secrets,
    async finish() {
      if (call !== undefined && made === undefined) made = await call.finish();
      return made;
    },
  };
}

/**
 * An outside engine's reply `text`: refused when it holds a run secret it was not handed, else parsed with
 * `hidden` redacted (from the window too); its failures carry `records`, a skip is thrown as it is.
 */
export function readOutsideReply(
  text: string,
  hidden: readonly string[],
  name: string,
  records: EngineError["records"],
): OutsideReply {
  const stolen = foundRunSecrets(text, hidden);
  if (stolen.length > 0) throw new EngineError(stolenSecretReason(name, stolen), { records });
  try {
    const reply = parseOutsideReplyWithTools(redact(text, hidden), name);
    return { ...reply, messages: redactValue(reply.messages, hidden) };
  } catch (error) {
    if (error instanceof EngineError) throw new EngineError(error.message, { records });
    throw error;
  }
}

/** `given` (values an outside process was handed) with the run's other secrets, for redacting what it says. */
export function withRunSecrets(given: readonly string[]): string[] {
  return [...given, ...runSecrets().map((secret) => secret.value)];
}

/** `bytes` decoded as strict UTF-8, or null when they are not UTF-8. */
export function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}
