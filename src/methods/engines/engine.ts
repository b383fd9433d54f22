/**
 * The context-engine contract: one `compress` call turns a transcript into a smaller window.
 * Built-in engines live one per file next to this one; outside engines join through exec_engine.ts and
 * http_engine.ts; create.ts builds any of them from a spec string.
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
  /**
   * The host's context window (`--context-length N`), told to engines that take one as their host tells them
   * (Hermes' `update_model`, lean-ctx's plugin config, `context_length` in an outside engine's request); they
   * decide themselves what to keep. Absent: a budget run (`budgetTokens` is then the target). With it,
   * `budgetTokens` is N, what engines without a context-length knob fit.
   */
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

/**
 * The recall tools an engine offers after a compaction, served by the very instance that compacted (an
 * `exec+tools:` process kept alive, an `http:` service's session). Calls are answered one at a time, each
 * within the engine's time limit; {@link RecallSession.close} ends the instance.
 */
export interface RecallSession {
  /** The tools, as OpenAI tool schemas (offered to the chat model as they are). */
  readonly tools: ToolDefinition[];
  /** Calls tool `name` with `args`. Never throws for the engine's failures: they are `{ok: false}`. */
  call(name: string, args: Record<string, unknown>): Promise<RecallReply>;
  /** Ends the instance (idempotent). */
  close(): Promise<void>;
}

/**
 * How an engine's compress time is measured: `in-process` (the harness times the call itself), `worker` (a
 * persistent outside process times its engine's own call and reports it), `one-shot` (one process per call: only
 * the round trip, process start included, is known), `http` (the round trip of one HTTP request, unless the
 * service reports its own time).
 */
export type EngineTiming = "in-process" | "worker" | "one-shot" | "http";

/** What a worker said in its hello, and the start-up the harness saw (spawn to hello, monotonic clock). */
export interface WorkerInfo {
  engine: string;
  version: string;
  /** Process start + imports: spawn to the hello line, as the harness saw it (ms). */
  startup_ms: number;
  /** The worker's own figure, when it gave one. */
  reported_startup_ms: number | null;
  /** True when the engine declared that it keeps state across calls (else each call is fresh). */
  keeps_state: boolean;
}

/** The outcome of one compress call. */
export interface CompressResult {
  messages: ChatMessage[];
  /** The engine's own compress time (ms) as the engine reported it (a worker's monotonic clock). */
  engineMs?: number;
  /** How this call was timed (default: the engine's {@link ContextEngine.timing}, else `in-process`). */
  timing?: EngineTiming;
  usage?: CompressUsage;
  records?: CallRecord[];
  /** Recall tools the engine offers over what it compacted (the caller must close it). */
  recall?: RecallSession;
}

/**
 * What an engine is: one of this program's own engines, this program's reimplementation of someone else's
 * idea (labelled so in every table), an outside program run through `exec:`/`http:` (the real
 * competitors' adapters among them), or a framework library's own compaction run in-process (the real npm
 * library, its name and version in every row label).
 */
export type EngineKind = "built-in" | "reimplementation" | "outside" | "library";

/** A context engine: anything that compacts a transcript toward a token budget. */
export interface ContextEngine {
  /** The engine's name as reported (`NAME` of `--engine NAME=SPEC`, else the spec it was created from). */
  readonly name: string;
  /** What kind of engine it is (see {@link EngineKind}). */
  readonly kind: EngineKind;
  /** For a `library` engine: the libraries it runs, `name version` (e.g. `@langchain/core 1.4.0`). */
  readonly library?: string;
  /**
   * What a reader must know about how the engine meets the budget, when it is not this program's exact
   * count (e.g. a library that counts tokens its own way); shown with its rows, never acted on.
   */
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
  /**
   * Variables passed to outside `exec:` engines on top of the minimal environment (PATH, HOME, LANG,
   * TMPDIR): only what `--engine-env NAME` names. Provider keys reach an engine only this way.
   */
  env?: Readonly<Record<string, string>>;
  /** Directory of Hermes Agent for the `hermes` and `hermes-lcm` adapters (`--hermes DIR`). */
  hermesDir?: string;
  /**
   * The loopback chat endpoint outside engines get (a user's `exec:` engine as `OPENAI_BASE_URL`, a per-call
   * token as `OPENAI_API_KEY`, `OPENAI_MODEL`; this program's adapters under `LLM_*` names); their model calls through it are recorded as the engine's own. Transport: never in a key.
   */
  endpoint?: LoopbackProxy;
  /** The most bytes of an outside engine's output (`--max-response-bytes`; default 8 MiB). */
  maxOutputBytes?: number;
}

/**
 * The engine chose not to run, with a reason (e.g. the real Hermes is not installed): its row reads
 * `skipped: <reason>`. Never a measurement, never a failure of the run.
 */
export class EngineSkipped extends Error {
  /** Creates a skip; `message` is the reason shown in the results. */
  constructor(message: string) {
    super(message);
    this.name = "EngineSkipped";
  }
}

/**
 * An engine failed in a way the run records (bad output, time limit, crash, failed model call) and
 * goes on from. Any other error is a bug and propagates.
 */
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
