/**
 * The context-engine contract: one `compress` call turns a transcript into a smaller window (create.ts builds
 * any engine from a spec string).
 *
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../../models/messages.ts";
import type { CallRecord, ChatModel, DecisionModel } from "../../models/types.ts";
import type { LoopbackProxy } from "../../models/loopback_proxy.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { Usage } from "../../core/usage.ts";

/**
 * What an engine is told besides the messages: the budget (chat template included) the `counter` measures,
 * the input's count, and the host's context window in a `--context-length N` run (`budgetTokens` is N then).
 */
export interface CompressOptions {
  budgetTokens: number;
  currentTokens: number;
  contextLength?: number;
  counter: TokenCounter;
}

/** Provider usage of the model calls one compress call made. */
export type CompressUsage = Usage;

/** What one recall tool call gave: the text the model is shown, or why there is none. */
export type RecallReply = { ok: true; content: string } | { ok: false; error: string };

/** The recall tools an engine offers after a compaction, served by the instance that compacted. */
export interface RecallSession {
  readonly tools: ToolDefinition[];
  /** Calls tool `name` with `args`; the engine's failures are `{ok: false}`, never thrown. */
  call(name: string, args: Record<string, unknown>): Promise<RecallReply>;
  /** Ends the instance (idempotent). */
  close(): Promise<void>;
}

/** How an engine's compress time is measured: by the harness, by the worker, or only as a round trip. */
export type EngineTiming = "in-process" | "worker" | "one-shot" | "http";

/** What a worker said in its hello, and the start-up the harness saw (spawn to hello, ms). */
export interface WorkerInfo {
  engine: string;
  version: string;
  startup_ms: number;
  reported_startup_ms: number | null;
  keeps_state: boolean;
}

/** The outcome of one compress call: the window, the engine's own time if reported, its model calls. */
export interface CompressResult {
  messages: ChatMessage[];
  engineMs?: number;
  /** How this call was timed (default: the engine's {@link ContextEngine.timing}, else `in-process`). */
  timing?: EngineTiming;
  usage?: CompressUsage;
  records?: CallRecord[];
  /** Recall tools the engine offers over what it compacted (the caller must close it). */
  recall?: RecallSession;
}

/** This program's own, a reimplementation of another's (labelled so), an outside program, or a library's. */
export type EngineKind = "built-in" | "reimplementation" | "outside" | "library";

/** A context engine: anything that compacts a transcript toward a token budget. */
export interface ContextEngine {
  /** `NAME` of `--engine NAME=SPEC`, else the spec it was created from. */
  readonly name: string;
  readonly kind: EngineKind;
  /** For a `library` engine: the libraries it runs, `name version, …`. */
  readonly library?: string;
  /** How the engine meets the budget when not by this program's exact count; shown with its rows. */
  readonly note?: string;
  /** How its compress calls are timed (default `in-process`); a call may say otherwise (an `exec:` engine). */
  readonly timing?: EngineTiming;
  /** Loads what the engine needs (a library, a worker process) before its first, timed, compress call. */
  prepare?(): Promise<void>;
  /** The worker serving it, once started (outside engines speaking the worker protocol), else null. */
  worker?(): WorkerInfo | null;
  /** Ends what the engine keeps running (its worker process); idempotent. */
  close?(): Promise<void>;
  compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult>;
}

/** Models and limits an engine factory may need (outside engines: `timeoutMs` per call, `--engine-env`). */
export interface EngineDeps {
  chat?: ChatModel;
  decision?: DecisionModel;
  timeoutMs: number;
  env?: Readonly<Record<string, string>>;
  /** Directory of Hermes Agent for the `hermes` and `hermes-lcm` adapters (`--hermes DIR`). */
  hermesDir?: string;
  /** The loopback chat endpoint outside engines get; their calls through it are recorded as theirs. */
  endpoint?: LoopbackProxy;
  /** `--max-response-bytes` (default 8 MiB). */
  maxOutputBytes?: number;
}

/** The engine chose not to run (e.g. Hermes is not installed): its row reads `skipped: <reason>`. */
export class EngineSkipped extends Error {
  override name = "EngineSkipped";
}

/** An engine failure the run records and goes on from (bad output, time limit, crash, failed model call). */
export class EngineError extends Error {
  /** The provider exchanges the failed call made (recorded with the engine's result). */
  readonly records: CallRecord[];
  override name = "EngineError";
  /** `message` is the reason shown in the results. */
  constructor(message: string, options?: ErrorOptions & { records?: CallRecord[] }) {
    super(message, options);
    this.records = options?.records ?? [];
  }
}
