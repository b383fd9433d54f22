/**
 * The model-facing contracts every suite, method and engine codes against. Clients never throw for provider
 * failures: they return `{ok: false, error}` with the call records, so a failed call is recorded and scored.
 * @module
 */
import type { ChatMessage, ToolDefinition } from "./messages.ts";
import type { ChatReply } from "./chat_response.ts";
import type { CallRecord } from "../core/call_record.ts";

export type { CallRecord } from "../core/call_record.ts";

/** One chat completion request, as the suites build it (transport settings are the client's). */
export interface ChatRequest {
  messages: ChatMessage[];
  max_tokens?: number;
  tools?: ToolDefinition[];
}

/** The outcome of one chat completion: the reply (chat_response.ts, `model` the one that answered), or why not. */
export type ChatResult =
  | ChatReply & { ok: true; system_fingerprint?: string; record: CallRecord }
  | { ok: false; error: string; record: CallRecord };

/** Anything that answers chat completions (`model`: the name requested). */
export interface ChatModel {
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatResult>;
}

/** A System One question that asks for a probability. */
export interface NoulQuestion {
  type: "noul";
  instructions: string;
  criteria?: string;
}

/** The outcome of asking the decision model a set of questions (possibly in several batches). */
export type DecisionResult =
  | {
    ok: true;
    /** One probability per question, in question order. */
    nouls: number[];
    model: string;
    usage: { input_tokens: number; output_tokens: number };
    records: CallRecord[];
  }
  | { ok: false; error: string; records: CallRecord[] };

/** Anything that answers System One noul questions. */
export interface DecisionModel {
  readonly model: string;
  ask(state: string, questions: NoulQuestion[]): Promise<DecisionResult>;
}

/** A unit of evidence to rank. */
export interface RankUnit {
  id: string;
  text: string;
}

/** A ranking: strict descending probability, ties by unit id. */
export type Ranking =
  | {
    ok: true;
    order: string[];
    probabilities: Record<string, number>;
    model: string;
    usage: { input_tokens: number; output_tokens: number };
    records: CallRecord[];
  }
  | { ok: false; error: string; records: CallRecord[] };
