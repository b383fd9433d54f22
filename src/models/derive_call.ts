/**
 * What a stored call record says, derived from the response it holds alone (docs/FORMAT.md, "Call records"):
 * `verify --rederive` replays a provider node over its records ({@link ReplayChatModel},
 * {@link ReplayDecisionModel}) and names an output, status or usage that does not follow from them.
 * @module
 */
import type { CallRecord } from "../core/call_record.ts";
import { canonicalJson } from "../store/canonical.ts";
import { chatCompletion, type ChatReply, chatReply } from "./chat_response.ts";
import { type BatchOutcome, combineBatches, systemOneReply } from "./decision_client.ts";
import { rawBodyReason } from "./response_body.ts";
import type {
  ChatModel,
  ChatRequest,
  ChatResult,
  DecisionModel,
  DecisionResult,
  NoulQuestion,
} from "./types.ts";

/** One disagreement between a record (or a node) and the responses it holds. */
export interface DerivationProblem {
  kind: "output_not_from_response" | "usage_mismatch" | "status_mismatch";
  message: string;
}

type DerivedCall<T> =
  | { ok: true; value: T; usage: { input_tokens: number; output_tokens: number }; model: string }
  | { ok: false; error: string };

/** Derives a call: from its raw body, from its parsed 2xx body through `parse`, or as recorded otherwise. */
function derive<T>(
  record: CallRecord,
  exhausted: string,
  parse: (response: unknown) => DerivedCall<T>,
  problems: DerivationProblem[],
): DerivedCall<T> {
  let derived: DerivedCall<T>;
  let fromResponse = true;
  // The HTTP status the response came with (older records: 200 when the call succeeded).
  const status = record.http_status ?? (record.status === "ok" ? 200 : undefined);
  if (record.response_raw !== undefined) {
    const reason = rawBodyReason(record.response_raw, status ?? 200);
    if (reason === null) {
      problems.push({
        kind: "output_not_from_response",
        message: "the record refused a raw body that is acceptable I-JSON",
      });
      derived = { ok: false, error: record.error ?? "" };
    } else {
      derived = { ok: false, error: reason.malformed ? `${reason.reason} ${exhausted}` : reason.reason };
    }
  } else if (
    record.response !== undefined && status !== undefined && status >= 200 && status < 300 &&
    (record as { response_altered?: unknown }).response_altered === undefined
  ) {
    // A 2xx body the client did not accept is retried: the error is the last attempt's.
    const parsed = parse(record.response);
    derived = parsed.ok ? parsed : { ok: false, error: `${parsed.error} ${exhausted}` };
  } else {
    // No body to derive from (a timeout, a connection failure, an HTTP error): the failure is as recorded.
    fromResponse = false;
    derived = { ok: false, error: record.error ?? "" };
  }
  const recorded = record.status === "ok";
  if (derived.ok !== recorded) {
    problems.push({
      kind: "status_mismatch",
      message: `the record says ${record.status}; its response gives ${
        derived.ok ? "ok" : `failed (${derived.error})`
      }`,
    });
  } else if (!derived.ok && fromResponse && derived.error !== (record.error ?? "")) {
    problems.push({
      kind: "status_mismatch",
      message: `the record's error ${JSON.stringify(record.error)} is not its response's (${derived.error})`,
    });
  }
  if (derived.ok && recorded) {
    const usage = record.usage;
    if (
      !usage || usage.input_tokens !== derived.usage.input_tokens ||
      usage.output_tokens !== derived.usage.output_tokens
    ) {
      problems.push({
        kind: "usage_mismatch",
        message: `the record's usage ${JSON.stringify(usage ?? null)} is not its response's ${
          JSON.stringify(derived.usage)
        }`,
      });
    }
    if (record.model !== derived.model) {
      problems.push({
        kind: "output_not_from_response",
        message: `the record's model ${JSON.stringify(record.model)} is not its response's ${
          JSON.stringify(derived.model)
        }`,
      });
    }
  }
  return derived;
}

/** The chat call a record holds, derived from its response; disagreements go to `problems`. */
export function deriveChatCall(record: CallRecord, problems: DerivationProblem[]): DerivedCall<ChatReply> {
  return derive(record, `(retries exhausted, ${record.attempts} attempts)`, (response) => {
    const parsed = chatCompletion(response);
    if (!parsed.ok) return parsed;
    const reply = chatReply(parsed.parsed);
    return {
      ok: true,
      value: reply,
      usage: { input_tokens: reply.usage.prompt_tokens, output_tokens: reply.usage.completion_tokens },
      model: reply.model,
    };
  }, problems);
}

/** The System One batch a record holds, derived from its response; disagreements go to `problems`. */
export function deriveSystemOneCall(
  record: CallRecord,
  problems: DerivationProblem[],
): DerivedCall<number[]> {
  const asked = (record.request as { questions?: unknown[] } | undefined)?.questions?.length ?? 0;
  return derive(record, `(retries exhausted after ${record.attempts} attempts)`, (response) => {
    const reply = systemOneReply(response, asked);
    if (!reply.ok) return reply;
    return { ok: true, value: reply.nouls, usage: reply.usage, model: reply.model };
  }, problems);
}

/** A replay asked for a call its node did not record, or in another shape: the node cannot be replayed. */
export class ReplayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayError";
  }
}

/** The records of one node, handed out in order to the replayed calls. */
export class RecordQueue {
  #next = 0;
  /** Disagreements found while replaying. */
  readonly problems: DerivationProblem[] = [];

  constructor(readonly records: readonly CallRecord[]) {}

  /** The next record of `endpoint`. */
  take(endpoint: CallRecord["endpoint"]): CallRecord {
    const record = this.records[this.#next];
    if (record === undefined) {
      throw new ReplayError(`the stage made more calls than the ${this.records.length} its node recorded`);
    }
    if (record.endpoint !== endpoint) {
      throw new ReplayError(`call ${this.#next} is a ${endpoint} call; its record is ${record.endpoint}`);
    }
    this.#next++;
    return record;
  }

  /** How many records the replay used. */
  get used(): number {
    return this.#next;
  }

  /** Names a request that differs from the one the record holds. */
  compare(what: string, rebuilt: unknown, recorded: unknown): void {
    if (canonicalJson(rebuilt ?? null) !== canonicalJson(recorded ?? null)) {
      const message = `call ${
        this.#next - 1
      }: the ${what} rebuilt from the node's inputs differs from the recorded one`;
      this.problems.push({ kind: "output_not_from_response", message });
    }
  }
}

/** A chat model that answers from a node's records (no call is made). */
export class ReplayChatModel implements ChatModel {
  constructor(readonly model: string, readonly queue: RecordQueue) {}

  /** The next record's derived result, after checking its request is this one. */
  complete(request: ChatRequest): Promise<ChatResult> {
    const record = this.queue.take("chat");
    const sent = (record.request ?? {}) as Record<string, unknown>;
    this.queue.compare("messages", request.messages, sent.messages);
    this.queue.compare("max_tokens", request.max_tokens, sent.max_tokens);
    this.queue.compare("tools", request.tools?.length ? request.tools : undefined, sent.tools);
    const derived = deriveChatCall(record, this.queue.problems);
    if (!derived.ok) return Promise.resolve({ ok: false, error: derived.error, record });
    return Promise.resolve({ ok: true, ...derived.value, record });
  }
}

/** A decision model that answers from a node's records, one record per batch (no call is made). */
export class ReplayDecisionModel implements DecisionModel {
  constructor(readonly model: string, readonly queue: RecordQueue) {}

  /** The recorded batches' derived answers, after checking they asked exactly these questions. */
  ask(state: string, questions: NoulQuestion[]): Promise<DecisionResult> {
    const batches: { start: number; end: number }[] = [];
    const outcomes: { result: BatchOutcome; record: CallRecord }[] = [];
    let covered = 0;
    while (covered < questions.length) {
      const record = this.queue.take("systemone");
      const sent = (record.request ?? {}) as { state?: unknown; questions?: unknown[] };
      const count = Array.isArray(sent.questions) ? sent.questions.length : 0;
      if (count === 0) throw new ReplayError("a recorded System One batch asks no question");
      this.queue.compare("state", state, sent.state);
      this.queue.compare("questions", questions.slice(covered, covered + count), sent.questions);
      batches.push({ start: covered, end: covered + count });
      covered += count;
      const derived = deriveSystemOneCall(record, this.queue.problems);
      outcomes.push({
        record,
        result: derived.ok
          ? { ok: true, nouls: derived.value, model: derived.model, usage: derived.usage }
          : { ok: false, error: derived.error },
      });
    }
    return Promise.resolve(combineBatches(this.model, batches, outcomes));
  }
}
