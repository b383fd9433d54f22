/**
 * Outside engines as persistent workers (docs/WORKER_PROTOCOL.md): one process per engine instance, started
 * before the first timed call. A user's `exec:` engine is probed once: one that writes no hello runs one
 * process per call (exec_engine.ts).
 *
 * @module
 */
import { z } from "zod";
import { redact, redactValue } from "../../models/credentials.ts";
import type { ChatMessage } from "../../models/messages.ts";
import {
  type CompressOptions,
  type CompressResult,
  type ContextEngine,
  EngineError,
  EngineSkipped,
  type RecallReply,
  type RecallSession,
  type WorkerInfo,
} from "./engine.ts";
import {
  createExecEngine,
  execCommand,
  type ExecEngineOptions,
  openEndpointCall,
  strictUtf8,
} from "./exec_engine.ts";
import {
  outsideRequest,
  OutsideSkipSchema,
  parseOutsideReplyWithTools,
  parseRecallReply,
} from "./outside_protocol.ts";
import {
  type LineRead,
  type OutsideSession,
  sessionEnding,
  startOutsideSession,
  unreadReason,
} from "./outside_session.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, runOutsideProcess } from "./outside_process.ts";
import { MAX_TOOL_LINE_BYTES } from "./exec_recall_engine.ts";
import { parseJson } from "../../core/json_read.ts";

/** Tells a worker when it was started (epoch ms), for its own start-up figure. */
const SPAWNED_AT_VARIABLE = "COMPACTION_BENCH_SPAWNED_AT";
const MAX_HELLO_BYTES = 64 * 1024;

/** A worker's first line. */
const WorkerHelloSchema = z.object({
  hello: z.object({
    engine: z.string().min(1).max(200),
    version: z.string().max(200),
    startup_ms: z.number().finite().nonnegative().optional(),
    keeps_state: z.boolean().optional(),
  }),
});

/** The hello of `text` (one line), or null when it is not one; a skip line is an {@link EngineSkipped}. */
function parseHello(text: string): z.infer<typeof WorkerHelloSchema>["hello"] | null {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  const skip = OutsideSkipSchema.safeParse(json);
  if (skip.success) throw new EngineSkipped(skip.data.skipped.replace(/\s+/g, " ").trim());
  const hello = WorkerHelloSchema.safeParse(json);
  return hello.success ? hello.data.hello : null;
}

/** Whether a command speaks the worker protocol, per command line (a probe costs one process start). */
const probed = new Map<string, Promise<boolean>>();

/** Options of {@link createWorkerEngine}. */
interface WorkerEngineOptions extends ExecEngineOptions {
  /** Probe the command first (a user's `exec:` engine); else it must speak the protocol (our adapters). */
  probe: boolean;
}

/** An engine served by one persistent worker process (see the module notes). */
export function createWorkerEngine(command: string, options: WorkerEngineOptions): ContextEngine {
  const { argv, name, env, secrets } = execCommand("exec", command, options);
  const { timeoutMs } = options;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  let mode: "unknown" | "worker" | "one-shot" = options.probe ? "unknown" : "worker";
  let oneShot: ContextEngine | undefined;
  let live: OutsideSession | null = null;
  let info: WorkerInfo | null = null;
  let ids = 0;
  // One request in flight at a time: compress calls, tool calls and releases share the worker's lines.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task);
    queue = next.catch(() => {});
    return next;
  };

  /** Kills the worker and names what went wrong (with its exit and the tail of its stderr). */
  const failure = async (what: string, hidden: readonly string[], records: EngineError["records"] = []) => {
    const session = live;
    live = null;
    await session?.close(0);
    return new EngineError(`${name}: ${what}${session ? sessionEnding(session, hidden) : ""}`, { records });
  };
  const readFailure = (read: LineRead, what: string) =>
    `${what}: ${read.kind === "end" ? "the worker exited" : unreadReason(read, timeoutMs)}`;
  const spawnEnv = () => ({ ...env, [SPAWNED_AT_VARIABLE]: String(Date.now()) });

  async function start(): Promise<void> {
    const began = performance.now();
    const started = await startOutsideSession({ argv, env: spawnEnv() });
    if ("notStarted" in started) {
      throw new EngineError(`${name}: cannot start '${argv[0]}': ${started.notStarted}`);
    }
    live = started.session;
    const read = await live.readLine(timeoutMs, MAX_HELLO_BYTES);
    const startupMs = performance.now() - began;
    // A worker that cannot run here says so in place of its hello, then exits.
    const text = read.kind === "line" ? read.text : read.kind === "end" ? read.rest : null;
    let hello: ReturnType<typeof parseHello> = null;
    try {
      hello = text === null ? null : parseHello(redact(text, secrets));
    } catch (error) {
      live = null;
      await started.session.close(0);
      throw error;
    }
    if (hello === null) {
      throw await failure(
        read.kind === "line" ? "its first line is not a worker hello" : readFailure(read, "before its hello"),
        secrets,
      );
    }
    info = {
      engine: hello.engine,
      version: hello.version,
      startup_ms: startupMs,
      reported_startup_ms: hello.startup_ms ?? null,
      keeps_state: hello.keeps_state ?? false,
    };
  }

  async function probeOnce(): Promise<boolean> {
    const outcome = await runOutsideProcess({
      argv,
      env: spawnEnv(),
      stdin: new Uint8Array(0),
      timeoutMs,
      maxOutputBytes: MAX_HELLO_BYTES,
    });
    if (outcome.kind !== "exited" || outcome.overflowed) return false;
    const text = strictUtf8(outcome.stdout);
    if (text === null) return false;
    try {
      return parseHello(text.split("\n", 1)[0]) !== null;
    } catch (error) {
      // A skip line before any request: a worker that cannot run here (its first call says so again).
      if (error instanceof EngineSkipped) return true;
      throw error;
    }
  }

  async function settle(): Promise<void> {
    if (mode === "unknown") {
      const key = JSON.stringify(argv);
      if (!probed.has(key)) probed.set(key, probeOnce());
      mode = await probed.get(key)! ? "worker" : "one-shot";
    }
    if (mode === "one-shot") oneShot ??= createExecEngine(command, options);
  }

  function recallOver(id: string, tools: RecallSession["tools"], hidden: readonly string[]): RecallSession {
    const worker = live;
    let released = false;
    const exchange = async (line: string, what: string, maxBytes: number): Promise<string> => {
      if (live === null || live !== worker) throw new Error(`${name}: the worker that compacted is gone`);
      if (!await live.writeLine(line)) {
        throw new Error((await failure(`${what}: no longer reads`, hidden)).message);
      }
      const read = await live.readLine(timeoutMs, maxBytes);
      if (read.kind !== "line") throw new Error((await failure(readFailure(read, what), hidden)).message);
      return redact(read.text, [...hidden]);
    };
    return {
      tools,
      call: (tool, args) =>
        serial(async (): Promise<RecallReply> => {
          try {
            const text = await exchange(
              JSON.stringify({ op: "tool", id, name: tool, arguments: args }),
              "tool call",
              MAX_TOOL_LINE_BYTES,
            );
            return parseRecallReply(text, name);
          } catch (error) {
            if (error instanceof Error) return { ok: false, error: error.message };
            throw error;
          }
        }),
      close: () =>
        serial(async () => {
          if (released) return;
          released = true;
          await exchange(JSON.stringify({ op: "release", id }), "release", MAX_HELLO_BYTES).catch(() => {});
        }),
    };
  }

  async function workerCall(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
    if (live === null) await start();
    const session = live!;
    const id = String(++ids);
    const call = openEndpointCall(options, secrets);
    const hidden = call.hidden;
    const request = {
      op: "compress",
      id,
      ...outsideRequest(messages, opts),
      ...(call.env ? { env: call.env } : {}),
    };
    let read: LineRead;
    try {
      if (!await session.writeLine(JSON.stringify(request))) {
        throw await failure("stopped reading its requests", hidden, (await call.finish())?.records);
      }
      read = await session.readLine(timeoutMs, maxOutputBytes);
    } finally {
      // The token dies with the call: nothing the worker keeps can call the model for it later.
      await call.finish();
    }
    const made = await call.finish();
    const records = made?.records ?? [];
    if (read.kind !== "line") throw await failure(readFailure(read, "compress"), hidden, records);
    let reply;
    try {
      reply = parseOutsideReplyWithTools(redact(read.text, hidden), name);
    } catch (error) {
      if (error instanceof EngineSkipped) {
        await failure("skipped", hidden);
        throw error;
      }
      if (error instanceof EngineError) {
        throw await failure(error.message.replace(`${name}: `, ""), hidden, records);
      }
      throw error;
    }
    return {
      messages: redactValue(reply.messages, hidden),
      timing: "worker",
      ...(reply.compressMs !== undefined ? { engineMs: reply.compressMs } : {}),
      ...(made ? { usage: made.usage, records } : {}),
      ...(reply.tools.length > 0 ? { recall: recallOver(id, reply.tools, hidden) } : {}),
    };
  }

  return {
    kind: "outside",
    name,
    timing: options.probe ? undefined : "worker",
    async prepare() {
      await settle();
      if (mode === "worker") await serial(async () => live === null ? await start() : undefined);
    },
    async compress(messages, opts) {
      await settle();
      if (oneShot !== undefined) return { ...await oneShot.compress(messages, opts), timing: "one-shot" };
      return await serial(() => workerCall(messages, opts));
    },
    worker: () => info,
    close: () =>
      serial(async () => {
        const session = live;
        live = null;
        await session?.close();
      }),
  };
}
