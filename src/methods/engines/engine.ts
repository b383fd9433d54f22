/**
 * The context-engine contract: one `compress` call turns a transcript into a smaller window.
 * Built-in engines live one per file next to this one; outside engines join through exec_engine.ts and
 * http_engine.ts; create.ts builds any of them from a spec string.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { CallRecord, ChatModel, DecisionModel } from "../../models/types.ts";
import type { TokenCounter } from "../../tokens/types.ts";

/** What an engine is told besides the messages. */
export interface CompressOptions {
  /** The token budget the compacted window should fit in (chat template included). */
  budgetTokens: number;
  /** The token count of the input messages, as the counter gives it. */
  currentTokens: number;
  /** The tokenizer and chat template the budget is measured with. */
  counter: TokenCounter;
}

/** Provider usage of the model calls one compress call made. */
export interface CompressUsage {
  input_tokens: number;
  output_tokens: number;
  calls: number;
}

/** The outcome of one compress call. */
export interface CompressResult {
  messages: ChatMessage[];
  usage?: CompressUsage;
  records?: CallRecord[];
}

/** A context engine: anything that compacts a transcript toward a token budget. */
export interface ContextEngine {
  /** The engine's name as reported (the spec it was created from). */
  readonly name: string;
  compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult>;
}

/** Models and limits an engine factory may need. */
export interface EngineDeps {
  chat?: ChatModel;
  decision?: DecisionModel;
  /** Time limit of one compress call of an outside engine, in milliseconds. */
  timeoutMs: number;
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
