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
import { concatBytes } from "../../core/bytes.ts";

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
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command(argv[0], {
          args: argv.slice(1),
          clearEnv: true,
          env,
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      } catch (error) {
        if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
          throw new EngineError(`${name}: cannot start '${argv[0]}': ${error.message}`);
        }
        throw error;
      }
      // stdout and stderr are read as they come; on time-out the child is killed and the readers are
      // cancelled, so a grandchild that keeps the pipes open cannot stretch the time limit.
      const readers = [child.stdout.getReader(), child.stderr.getReader()];
      const drain = async (reader: ReadableStreamDefaultReader<Uint8Array>, sink: Uint8Array[]) => {
        try {
          while (true) {
            const { done, value } = await reader.read();
            if (done) return;
            sink.push(value);
          }
        } catch (error) {
          if (!(error instanceof TypeError || error instanceof Deno.errors.Interrupted)) throw error;
        }
      };
      const out: Uint8Array[] = [];
      const err: Uint8Array[] = [];
      const finished = Promise.all([child.status, drain(readers[0], out), drain(readers[1], err)]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeoutMs);
      });
      try {
        const body = new TextEncoder().encode(JSON.stringify(outsideRequest(messages, opts)));
        const writer = child.stdin.getWriter();
        try {
          await writer.write(body);
          await writer.close();
        } catch (error) {
          // The process may exit (or be killed) before reading its input: its exit status tells why.
          if (!(error instanceof Deno.errors.BrokenPipe || error instanceof TypeError)) throw error;
        }
        const winner = await Promise.race([finished.then(() => "done" as const), timedOut]);
        if (winner === "timeout") {
          try {
            child.kill("SIGKILL");
          } catch (error) {
            if (!(error instanceof TypeError)) throw error; // already exited
          }
          await Promise.all(readers.map((reader) => reader.cancel().catch(() => {})));
          await child.status;
          throw new EngineError(`${name}: timed out after ${timeoutMs} ms (killed)`);
        }
        const [status] = await finished;
        const decode = (chunks: Uint8Array[]) =>
          redact(new TextDecoder().decode(concatBytes(chunks)), secrets);
        if (!status.success) {
          const stderr = decode(err).trim();
          const tail = stderr.length > STDERR_TAIL_CHARS ? `…${stderr.slice(-STDERR_TAIL_CHARS)}` : stderr;
          throw new EngineError(`${name}: exited with code ${status.code}${tail ? `: ${tail}` : ""}`);
        }
        return { messages: redactValue(parseOutsideReply(decode(out), name), secrets) };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
