/**
 * A live outside process that speaks lines (`exec+tools:` sessions and workers): started as every outside
 * process is (outside_process.ts), but its stdin stays open until {@link OutsideSession.close}.
 *
 * @module
 */
import { concatBytes } from "../../core/bytes.ts";
import { redact } from "../../models/credentials.ts";
import { killCall, MAX_STDERR_BYTES, spawnOutside, unregister } from "./outside_process.ts";
import { stderrTail, strictUtf8 } from "./exec_engine.ts";

/** How long a closed session may take to exit on its own before it is killed. */
const CLOSE_GRACE_MS = 2_000;

/** One line read, or why none came (`end`: stdout closed, with what followed the last line break). */
export type LineRead =
  | { kind: "line"; text: string }
  | { kind: "end"; rest: string }
  | { kind: "timeout" }
  | { kind: "too_long"; limit: number }
  | { kind: "bad_utf8" };

/** A started session. */
export interface OutsideSession {
  /** Writes `text` and a line break to stdin; false when the process no longer reads. */
  writeLine(text: string): Promise<boolean>;
  /** The next line of stdout (without its line break), within `timeoutMs` and `maxBytes`. */
  readLine(timeoutMs: number, maxBytes: number): Promise<LineRead>;
  /** Everything kept of stderr so far (its last {@link MAX_STDERR_BYTES}). */
  stderr(): string;
  /** How the process ended, once it has (null while it runs). */
  exitStatus(): Deno.CommandStatus | null;
  /** Closes stdin, waits up to `graceMs` (default 2 s) for the exit, kills what is left, removes the folder. */
  close(graceMs?: number): Promise<void>;
}

/** Why a read gave no line (not `line`, not `end`), as a failure reason says it. */
export function unreadReason(read: LineRead, timeoutMs: number): string {
  return read.kind === "timeout"
    ? `timed out after ${timeoutMs} ms (killed)`
    : read.kind === "too_long"
    ? `output over its ${read.limit}-byte bound: cut off (killed)`
    : "output is not valid UTF-8";
}

/** A failed session's ` (exit code N)` or ` (killed by SIG)` and `: <stderr tail>` (redacting `hidden`). */
export function sessionEnding(session: OutsideSession, hidden: readonly string[]): string {
  const status = session.exitStatus();
  const tail = stderrTail(redact(session.stderr(), hidden).trim());
  const exit = status !== null && !status.success
    ? status.signal !== null ? ` (killed by ${status.signal})` : ` (exit code ${status.code})`
    : "";
  return `${exit}${tail ? `: ${tail}` : ""}`;
}

/** Starts `argv` with exactly `env` (plus `TMPDIR` and the marker) as a session, or says why it cannot. */
export async function startOutsideSession(
  options: { argv: readonly string[]; env: Readonly<Record<string, string>> },
): Promise<{ session: OutsideSession } | { notStarted: string }> {
  const started = await spawnOutside(options.argv, options.env);
  if ("notStarted" in started) return started;
  const { child, folder, marker } = started;
  let status: Deno.CommandStatus | null = null;
  const exited = child.status.then((s) => status = s);
  const writer = child.stdin.getWriter();
  const out = child.stdout.getReader();
  // Its last MAX_STDERR_BYTES are kept (the tail is what a failure quotes).
  const errChunks: Uint8Array[] = [];
  let errBytes = 0;
  const errReader = child.stderr.getReader();
  const errDone = (async () => {
    try {
      while (true) {
        const { done, value } = await errReader.read();
        if (done) return;
        errChunks.push(value);
        errBytes += value.length;
        while (errBytes > MAX_STDERR_BYTES && errChunks.length > 1) errBytes -= errChunks.shift()!.length;
      }
    } catch (error) {
      if (!(error instanceof TypeError || error instanceof Deno.errors.Interrupted)) throw error;
    }
  })();
  let buffered: Uint8Array = new Uint8Array(0);
  let ended = false;
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  let closed = false;
  const session: OutsideSession = {
    async writeLine(text) {
      try {
        await writer.write(new TextEncoder().encode(`${text}\n`));
        return true;
      } catch (error) {
        if (error instanceof Deno.errors.BrokenPipe || error instanceof TypeError) return false;
        throw error;
      }
    },
    async readLine(timeoutMs, maxBytes) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((done) => timer = setTimeout(() => done("timeout"), timeoutMs));
      try {
        while (true) {
          const at = buffered.indexOf(10);
          if (at >= 0) {
            if (at > maxBytes) return { kind: "too_long", limit: maxBytes };
            const line = strictUtf8(buffered.subarray(0, at));
            buffered = buffered.slice(at + 1);
            return line === null ? { kind: "bad_utf8" } : { kind: "line", text: line };
          }
          if (buffered.length > maxBytes) return { kind: "too_long", limit: maxBytes };
          if (ended) {
            const rest = strictUtf8(buffered);
            buffered = new Uint8Array(0);
            return rest === null ? { kind: "bad_utf8" } : { kind: "end", rest };
          }
          pending ??= out.read();
          const winner = await Promise.race([pending, timedOut]);
          if (winner === "timeout") return { kind: "timeout" };
          pending = null;
          if (winner.done) ended = true;
          else buffered = concatBytes([buffered, winner.value]);
        }
      } catch (error) {
        if (!(error instanceof TypeError || error instanceof Deno.errors.Interrupted)) throw error;
        ended = true;
        const rest = strictUtf8(buffered);
        return rest === null ? { kind: "bad_utf8" } : { kind: "end", rest };
      } finally {
        clearTimeout(timer);
      }
    },
    stderr: () => new TextDecoder().decode(concatBytes(errChunks)),
    exitStatus: () => status,
    async close(graceMs = CLOSE_GRACE_MS) {
      if (closed) return;
      closed = true;
      await writer.close().catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([exited, new Promise((done) => timer = setTimeout(done, graceMs))]);
      clearTimeout(timer);
      await killCall(child.pid, marker);
      await out.cancel().catch(() => {});
      await errReader.cancel().catch(() => {});
      await errDone;
      await exited;
      unregister(child.pid);
      await Deno.remove(folder, { recursive: true }).catch(() => {});
    },
  };
  return { session };
}
