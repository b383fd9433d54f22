/**
 * The one way this program runs an outside engine or agent: its own process group, a PID namespace where
 * `unshare` allows, a per-call marker variable, a fresh folder and `TMPDIR`; when the direct child exits (or
 * at the time limit) everything it started is killed, and so on exit or a signal of this program.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { concatBytes } from "../../core/bytes.ts";

/** The variable that marks every process of one call (its value is random per call). */
const CALL_MARKER_VARIABLE = "COMPACTION_BENCH_CALL";

/** How long, after the direct child exited and its group was killed, buffered output may still drain. */
const DESCENDANT_GRACE_MS = 500;

/** What to run: `argv[0]` is looked up on `env.PATH`; `env` is the whole environment (nothing inherited). */
export interface OutsideProcessOptions {
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Bytes written to its stdin, which is then closed. */
  stdin: Uint8Array;
  timeoutMs: number;
  /** Working directory; default a fresh temporary folder (removed afterwards). */
  cwd?: string;
  /** The most bytes of stdout kept (default 8 MiB): past it the call is ended and says `overflowed`. */
  maxOutputBytes?: number;
}

/** The default bound of an outside process's stdout: 8 MiB, as a provider's response body. */
export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
/** The most bytes of an outside process's stderr kept (only its tail is ever quoted). */
export const MAX_STDERR_BYTES = 1024 * 1024;

/** How an outside process ended (`overflowed`: stdout passed its bound and holds the first bytes). */
export type OutsideProcessOutcome =
  | {
    kind: "exited";
    success: boolean;
    code: number;
    signal: Deno.Signal | null;
    stdout: Uint8Array;
    stderr: Uint8Array;
    overflowed?: boolean;
  }
  | { kind: "timeout"; stdout: Uint8Array; stderr: Uint8Array }
  | { kind: "not-started"; message: string };

/** Process groups (leader pids) alive now, with the marker of their call. */
const live = new Map<number, string>();
const SIGNALS: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const signalHandlers = new Map<Deno.Signal, () => void>();
let unloadInstalled = false;

/** Runs one outside process to completion (its outputs bounded, everything it started killed). */
export async function runOutsideProcess(options: OutsideProcessOptions): Promise<OutsideProcessOutcome> {
  const started = await spawnOutside(options.argv, options.env, options.cwd);
  if ("notStarted" in started) return { kind: "not-started", message: started.notStarted };
  const { child, folder, marker } = started;
  try {
    const out: Uint8Array[] = [];
    const err: Uint8Array[] = [];
    const readers = [child.stdout.getReader(), child.stderr.getReader()];
    let overflow: () => void = () => {};
    const overflowed = new Promise<"overflow">((done) => overflow = () => done("overflow"));
    const bound = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const drained = Promise.all([
      drain(readers[0], out, bound, overflow),
      drain(readers[1], err, MAX_STDERR_BYTES, () => {}),
    ]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((done) =>
      timer = setTimeout(() => done("timeout"), options.timeoutMs)
    );
    try {
      const writer = child.stdin.getWriter();
      // Written while the outputs are read (a large request cannot dead-lock against a full stdout pipe).
      const written = writer.write(options.stdin).then(() => writer.close()).catch((error) => {
        // The process may exit (or be killed) before reading its input: its exit status tells why.
        if (!(error instanceof Deno.errors.BrokenPipe || error instanceof TypeError)) throw error;
      });
      const winner = await Promise.race([child.status, timedOut, overflowed]);
      await killCall(child.pid, marker);
      await settle(drained, readers);
      await written.catch(() => {});
      const status = await child.status;
      const outputs = { stdout: concatBytes(out), stderr: concatBytes(err) };
      if (winner === "timeout") return { kind: "timeout", ...outputs };
      const { code, signal } = status;
      if (winner === "overflow") {
        return { kind: "exited", success: false, code, signal, ...outputs, overflowed: true };
      }
      return { kind: "exited", success: status.success, code, signal, ...outputs };
    } finally {
      clearTimeout(timer);
      unregister(child.pid);
    }
  } finally {
    await Deno.remove(folder, { recursive: true }).catch(() => {});
  }
}

/**
 * Starts `words` (stdio piped) and registers its group: the child, its fresh folder (to remove; `TMPDIR` is
 * its `tmp/`) and its marker; `notStarted` when it cannot be started.
 */
export async function spawnOutside(
  words: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd?: string,
): Promise<{ child: Deno.ChildProcess; folder: string; marker: string } | { notStarted: string }> {
  const argv = absoluteWords(words);
  const executable = findExecutable(argv[0], env.PATH);
  if (executable === null) return { notStarted: `'${argv[0]}' is not an executable file on PATH` };
  const folder = await Deno.makeTempDir({ prefix: "cb-outside-" });
  const tmp = join(folder, "tmp");
  await Deno.mkdir(tmp);
  const marker = crypto.randomUUID();
  const wrapper = await pidNamespaceWrapper();
  let child: Deno.ChildProcess;
  try {
    const [program, ...args] = [...wrapper, executable, ...argv.slice(1)];
    child = new Deno.Command(program, {
      args,
      clearEnv: true,
      env: { ...env, TMPDIR: tmp, [CALL_MARKER_VARIABLE]: marker },
      cwd: cwd ?? folder,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    await Deno.remove(folder, { recursive: true }).catch(() => {});
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return { notStarted: error.message };
    }
    throw error;
  }
  register(child.pid, marker);
  return { child, folder, marker };
}

/** Reads a stream to its end keeping at most `bound` bytes; past it calls `over` once and reads on. */
async function drain(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  sink: Uint8Array[],
  bound: number,
  over: () => void,
): Promise<void> {
  let size = 0;
  let flagged = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      if (size + value.byteLength > bound) {
        if (!flagged) {
          if (size < bound) sink.push(value.slice(0, bound - size));
          size = bound;
          flagged = true;
          over();
        }
        continue;
      }
      size += value.byteLength;
      sink.push(value);
    }
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof Deno.errors.Interrupted)) throw error;
  }
}

/** Lets the readers drain what is buffered for a moment, then cancels them. */
async function settle(drained: Promise<unknown>, readers: ReadableStreamDefaultReader<Uint8Array>[]) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((done) => timer = setTimeout(done, DESCENDANT_GRACE_MS));
  await Promise.race([drained, grace]);
  clearTimeout(timer);
  await Promise.all(readers.map((reader) => reader.cancel().catch(() => {})));
  await drained;
}

/** The most sweeps of marked processes one kill makes (each finds the ones forked during the last). */
const MAX_SWEEPS = 50;

/**
 * Kills the call's process group (and PID namespace) and every process carrying its marker, sweeping until
 * none is left (a killed zombie's environment reads empty, so it is not found twice).
 */
export async function killCall(leader: number, marker: string): Promise<void> {
  sigkill(-leader);
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    const found = await markedProcesses(marker);
    if (found.length === 0) return;
    for (const pid of found) sigkill(pid);
    sigkill(-leader);
  }
}

/** The namespace's init: a shell that hands stdin on to the command (else /dev/null), waits, exits with it. */
const NAMESPACE_SHIM = 'exec 3<&0; "$@" <&3 3<&- & child=$!; exec 3<&-; wait "$child"';

let namespaceWrapper: Promise<readonly string[]> | undefined;

/** The words that run a command in a PID namespace of its own here, found once by trying; empty: none. */
export function pidNamespaceWrapper(): Promise<readonly string[]> {
  return namespaceWrapper ??= (async () => {
    const path = "/usr/bin:/bin:/usr/sbin:/sbin";
    const unshare = findExecutable("unshare", path);
    const shell = findExecutable("sh", path);
    if (unshare === null || shell === null) return [];
    const pid = ["--pid", "--fork", "--mount-proc", "--kill-child", "--"];
    for (const user of [[], ["--user", "--map-current-user"]]) {
      const words = [unshare, ...user, ...pid, shell, "-c", NAMESPACE_SHIM, "sh"];
      try {
        const probe = await new Deno.Command(words[0], {
          args: [...words.slice(1), shell, "-c", "exit 7"],
          clearEnv: true,
          env: { PATH: path },
          stdin: "null",
          stdout: "null",
          stderr: "null",
        }).output();
        if (probe.code === 7) return words;
      } catch {
        return []; // not allowed to run it at all
      }
    }
    return [];
  })();
}

/** SIGKILL to `pid` (a process group when negative); one already gone is no error. */
function sigkill(pid: number): void {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof TypeError)) throw error;
  }
}

/** The pids (other than this one) whose environment holds `CALL_MARKER_VARIABLE=marker` (Linux `/proc`). */
async function markedProcesses(marker: string): Promise<number[]> {
  const needle = `${CALL_MARKER_VARIABLE}=${marker}\0`;
  const found: number[] = [];
  try {
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
      // Gone meanwhile, or not ours to read: skipped.
      const environ = await Deno.readFile(`/proc/${entry.name}/environ`).catch(() => null);
      if (environ === null) continue;
      // windows-1252 maps each byte to one distinct character: a byte-exact search of the ASCII needle.
      if (new TextDecoder("windows-1252").decode(environ).includes(needle)) found.push(Number(entry.name));
    }
  } catch (error) {
    // `/proc` cannot be read (Deno grants it only under `--allow-all`): the marker sweep is skipped.
    const unreadable = error instanceof Deno.errors.NotFound ||
      error instanceof Deno.errors.PermissionDenied ||
      error instanceof Deno.errors.NotCapable;
    if (!unreadable) throw error;
  }
  return found;
}

/** Words naming an existing file relative to this program's working directory, made absolute. */
export function absoluteWords(argv: readonly string[]): string[] {
  return argv.map((word, index) => {
    if (word === "" || isAbsolute(word) || word.startsWith("-") || word.includes("=")) return word;
    if (index === 0 && !word.includes("/")) return word; // a command name, looked up on PATH
    try {
      Deno.statSync(word);
      return resolve(word);
    } catch {
      return word;
    }
  });
}

/** The executable `name` resolves to on `path` (or itself when it holds a `/`), else null. */
export function findExecutable(name: string, path: string | undefined): string | null {
  const candidates = name.includes("/")
    ? [name]
    : (path ?? "").split(":").filter((dir) => dir !== "").map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && info.mode !== null && (info.mode & 0o111) !== 0) return resolve(candidate);
    } catch {
      // not there: the next one
    }
  }
  return null;
}

/** Registers a live process group (killed when this program exits or is signalled). */
export function register(pid: number, marker: string): void {
  live.set(pid, marker);
  if (!unloadInstalled) {
    globalThis.addEventListener("unload", () => {
      for (const leader of live.keys()) sigkill(-leader);
    });
    unloadInstalled = true;
  }
  if (signalHandlers.size === 0) {
    for (const signal of SIGNALS) {
      const handler = () => {
        for (const leader of live.keys()) sigkill(-leader);
        removeSignalHandlers();
        Deno.kill(Deno.pid, signal); // the default action now: this program ends of the signal
      };
      try {
        Deno.addSignalListener(signal, handler);
        signalHandlers.set(signal, handler);
      } catch (error) {
        if (!(error instanceof TypeError)) throw error; // a signal this platform does not have
      }
    }
  }
}

/** Forgets a process group that has been killed. */
export function unregister(pid: number): void {
  live.delete(pid);
  if (live.size === 0) removeSignalHandlers();
}

function removeSignalHandlers(): void {
  for (const [signal, handler] of signalHandlers) Deno.removeSignalListener(signal, handler);
  signalHandlers.clear();
}
