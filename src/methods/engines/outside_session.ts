/**
 * A live outside process that speaks lines (the `exec+tools:` session): started as outside_process.ts starts
 * every outside process, but its stdin stays open; {@link OutsideSession.close} closes it, waits
 * {@link CLOSE_GRACE_MS}, then kills what is left.
 *
 * @module
 */
import { concatBytes } from "../../core/bytes.ts";
import { killCall, MAX_STDERR_BYTES, spawnOutside, unregister } from "./outside_process.ts";

/** How long a closed session may take to exit on its own before it is killed. */
export const CLOSE_GRACE_MS = 2_000;

/** What to run. */
export interface OutsideSessionOptions {
  argv: readonly string[];
  /** The whole environment (nothing inherited); `TMPDIR` and the marker are added. */
  env: Readonly<Record<string, string>>;
}

/** One line read, or why none came. */
export type LineRead =
  | { kind: "line"; text: string }
  /** The process closed stdout (exited): what it wrote after the last line break, if anything. */
  | { kind: "end"; rest: string }
  | { kind: "timeout" }
  | { kind: "too_long"; limit: number }
  /** The line (or the rest) is not valid UTF-8 (never replaced by U+FFFD). */
  | { kind: "bad_utf8" };

/** A started session. */
export interface OutsideSession {
  /** Writes `text` and a line break to the process's stdin; false when the process no longer reads. */
  writeLine(text: string): Promise<boolean>;
  /** The next line of stdout (without its line break), within `timeoutMs` and `maxBytes`. */
  readLine(timeoutMs: number, maxBytes: number): Promise<LineRead>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** How the process ended, once it has (null while it runs). */
  exitStatus(): Deno.CommandStatus | null;
  /**
   * Closes stdin, waits up to `graceMs` (default {@link CLOSE_GRACE_MS}) for the exit, kills what is left,
   * removes the folder.
   */
  close(graceMs?: number): Promise<void>;
}

/** Starts `argv` as a session; null (with the reason) when it cannot start. */
export async function startOutsideSession(
  options: OutsideSessionOptions,
): Promise<{ session: OutsideSession } | { notStarted: string }> {
  const started = await spawnOutside(options.argv, options.env);
  if ("notStarted" in started) return started;
  const { child, folder, marker } = started;
  let status: Deno.CommandStatus | null = null;
  const exited = child.status.then((s) => {
    status = s;
    return s;
  });
  const writer = child.stdin.getWriter();
  const out = child.stdout.getReader();
  // stderr: its last MAX_STDERR_BYTES are kept (the tail is what a failure quotes).
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
      const timedOut = new Promise<"timeout">((done) => {
        timer = setTimeout(() => done("timeout"), timeoutMs);
      });
      try {
        while (true) {
          const at = buffered.indexOf(10);
          if (at >= 0) {
            if (at > maxBytes) return { kind: "too_long", limit: maxBytes };
            const line = strict(buffered.subarray(0, at));
            buffered = buffered.slice(at + 1);
            return line === null ? { kind: "bad_utf8" } : { kind: "line", text: line };
          }
          if (buffered.length > maxBytes) return { kind: "too_long", limit: maxBytes };
          if (ended) {
            const rest = strict(buffered);
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
        const rest = strict(buffered);
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

/** `bytes` as strict UTF-8, or null when they are not UTF-8. */
function strict(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}
