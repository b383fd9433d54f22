/**
 * Outside engines as processes: `exec:COMMAND ARGS` spawns the command (split shell-like, no shell),
 * writes `{messages, budget_tokens, current_tokens}` as JSON to its stdin and reads `{messages}` from its
 * stdout. A time limit kills the process. A non-zero exit, a time-out or bad output is an
 * {@link EngineError} naming the reason.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { type CompressOptions, type CompressResult, type ContextEngine, EngineError } from "./engine.ts";
import { outsideRequest, parseOutsideReply } from "./outside_protocol.ts";
import { splitCommandLine } from "./split_command.ts";

/** Characters of stderr quoted in a failure reason. */
const STDERR_TAIL_CHARS = 300;

/** An engine that runs `command` (a command line) once per compress call, killed after `timeoutMs`. */
export function createExecEngine(command: string, timeoutMs: number): ContextEngine {
  const argv = splitCommandLine(command);
  if (argv.length === 0) throw new UsageError(`engine 'exec:${command}': empty command`);
  const name = `exec:${command}`;
  return {
    name,
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command(argv[0], {
          args: argv.slice(1),
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
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          child.kill("SIGKILL");
        } catch (error) {
          if (!(error instanceof TypeError)) throw error; // already exited
        }
      }, timeoutMs);
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
        const output = await child.output();
        if (timedOut) throw new EngineError(`${name}: timed out after ${timeoutMs} ms (killed)`);
        if (!output.success) {
          const stderr = new TextDecoder().decode(output.stderr).trim();
          const tail = stderr.length > STDERR_TAIL_CHARS ? `…${stderr.slice(-STDERR_TAIL_CHARS)}` : stderr;
          throw new EngineError(`${name}: exited with code ${output.code}${tail ? `: ${tail}` : ""}`);
        }
        return { messages: parseOutsideReply(new TextDecoder().decode(output.stdout), name) };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
