/**
 * The context-engine contract: one `compress` call turns a transcript into a smaller window. create.ts
 * builds any engine from a spec string.
 *
 * @module
 */
import type { ChatMessage, ToolDefinition } from "../../models/messages.ts";
import type { CallRecord, ChatModel, DecisionModel } from "../../models/types.ts";
import type { LoopbackProxy } from "../../models/loopback_proxy.ts";
import type { TokenCounter } from "../../tokens/types.ts";

/** What an engine is told besides the messages. */
export interface CompressOptions {
  /** The token budget the compacted window should fit in (chat template included). */
  budgetTokens: number;
  /** The token count of the input messages, as the counter gives it. */
  currentTokens: number;
  /** The host's context window (`--context-length N`; `budgetTokens` is then N too); absent: a budget run. */
  contextLength?: number;
  /** The tokenizer and chat template the budget is measured with. */
  counter: TokenCounter;
}

/** Provider usage of the model calls one compress call made. */
export interface CompressUsage {
  input_tokens: number;
  output_tokens: number;
  calls: number;
}

/** What one recall tool call gave: the text the model is shown, or why there is none. */
export type RecallReply = { ok: true; content: string } | { ok: false; error: string };

/** The recall tools an engine offers after a compaction, served by the instance that compacted. */
export interface RecallSession {
  /** The tools, as OpenAI tool schemas. */
  readonly tools: ToolDefinition[];
  /** Calls tool `name` with `args`. Never throws for the engine's failures: they are `{ok: false}`. */
  call(name: string, args: Record<string, unknown>): Promise<RecallReply>;
  /** Ends the instance (idempotent). */
  close(): Promise<void>;
}

/** How an engine's compress time is measured: by the harness, by the worker, or only as a round trip. */
export type EngineTiming = "in-process" | "worker" | "one-shot" | "http";

/** What a worker said in its hello, and the start-up the harness saw (spawn to hello, monotonic clock). */
export interface WorkerInfo {
  engine: string;
  version: string;
  /** Spawn to the hello line, as the harness saw it (ms). */
  startup_ms: number;
  /** The worker's own figure, when it gave one. */
  reported_startup_ms: number | null;
  /** The engine declared that it keeps state across calls. */
  keeps_state: boolean;
}

/** The outcome of one compress call. */
export interface CompressResult {
  messages: ChatMessage[];
  /** The engine's own compress time (ms), as it reported it. */
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
  /** The engine's name as reported (`NAME` of `--engine NAME=SPEC`, else the spec it was created from). */
  readonly name: string;
  /** What kind of engine it is (see {@link EngineKind}). */
  readonly kind: EngineKind;
  /** For a `library` engine: the libraries it runs, `name version` (e.g. `@langchain/core 1.4.0`). */
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

/** Models and limits an engine factory may need. */
export interface EngineDeps {
  chat?: ChatModel;
  decision?: DecisionModel;
  /** Time limit of one compress call of an outside engine, in milliseconds. */
  timeoutMs: number;
  /** Variables passed to outside engines beside PATH, HOME, LANG, TMPDIR (`--engine-env`): keys only so. */
  env?: Readonly<Record<string, string>>;
  /** Directory of Hermes Agent for the `hermes` and `hermes-lcm` adapters (`--hermes DIR`). */
  hermesDir?: string;
  /** The loopback chat endpoint outside engines get; their calls through it are recorded as theirs. */
  endpoint?: LoopbackProxy;
  /** The most bytes of an outside engine's output (`--max-response-bytes`; default 8 MiB). */
  maxOutputBytes?: number;
}

/** The engine chose not to run (e.g. Hermes is not installed): its row reads `skipped: <reason>`. */
export class EngineSkipped extends Error {
  /** Creates a skip; `message` is the reason shown in the results. */
  constructor(message: string) {
    super(message);
    this.name = "EngineSkipped";
  }
}

/** An engine failure the run records and goes on from (bad output, time limit, crash, failed model call). */
export class EngineError extends Error {
  /** The provider exchanges the failed call made (recorded with the engine's result). */
  readonly records: CallRecord[];

  /** Creates an engine failure; `message` is the reason shown in the results. */
  constructor(message: string, options?: ErrorOptions & { records?: CallRecord[] }) {
    super(message, options);
    this.name = "EngineError";
    this.records = options?.records ?? [];
  }
}

/** Adds `extra` usage into `total` (in place) and returns `total`. */
export function addUsage(
  total: CompressUsage,
  extra: { input_tokens: number; output_tokens: number },
): CompressUsage {
  total.input_tokens += extra.input_tokens;
  total.output_tokens += extra.output_tokens;
  total.calls += 1;
  return total;
}
