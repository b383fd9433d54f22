/**
 * The answer stage hotpot and sweep share: one chat completion of a rendered answer input, its reported input
 * tokens checked against the ceiling; and check-only's comparison of answer inputs with a frozen run's.
 *
 * @module
 */
import { z } from "zod";
import type { Executor, NodeResult } from "../pipeline/executor.ts";
import { defineStage } from "../pipeline/stage.ts";
import type { CallRecord } from "../core/call_record.ts";
import type { ChatMessage } from "../models/messages.ts";
import type { ChatModel } from "../models/types.ts";
import { rowIds, rowInput } from "./published.ts";

/** An answer as stored in its node's `answer` output. */
export const StoredAnswerSchema = z.object({
  content: z.string(),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  model: z.string(),
  finish_reason: z.string(),
});
/** An answer as stored in its node's `answer` output. */
export type StoredAnswer = z.infer<typeof StoredAnswerSchema>;

/**
 * An answer node's `status` output: valid or not, why, with the node's key and params (so every answer node has
 * an output of its own even when two answers' texts are equal).
 */
export const AnswerStatusSchema = z.object({
  node: z.string(),
  status: z.enum(["ok", "invalid"]),
  reason: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
});

type AnswerStatus = z.infer<typeof AnswerStatusSchema>;

/** One answer request (`params`: key params only, no transport setting). */
interface AnswerRequest {
  stage: AnswerStageDef;
  label: string;
  params: Record<string, unknown>;
  /** The context node: its `messages` output is the answer input. */
  context: NodeResult<{ messages: ChatMessage[] | null }>;
  chat: ChatModel;
  maxTokens: number;
  /** The ceiling the provider's input count is checked against; null when the condition may exceed it. */
  inputCap: number | null;
}

/** What an answer body needs besides its input: the chat model, and why the context is invalid (if it is). */
interface AnswerEnv {
  chat: ChatModel;
  contextReason: string | null;
}

const AnswerParams = z.object({ max_tokens: z.number().int(), input_cap: z.number().int().nullable() })
  .loose();

/** The answer stage named `name` (each suite declares its own, e.g. `<suite>-answer`, in its `stages/`). */
export function answerStageDef(name: string) {
  return defineStage({
    name,
    version: 2, // 2: a `status` output carrying the node key
    doc:
      "One answer of the chat model to a rendered answer input, its input tokens checked against the ceiling.",
    params: AnswerParams,
    inputs: ["context"],
    outputs: {
      answer: { schema: StoredAnswerSchema.nullable(), doc: "the model's answer and the provider's usage" },
      status: { schema: AnswerStatusSchema, doc: "valid or not, why, and the node's key and params" },
    },
    provider: true,
    reuseFrozen: false,
    async run({ params, inputs, key, env }: {
      params: z.infer<typeof AnswerParams>;
      inputs: Record<string, unknown>;
      key: string;
      env: AnswerEnv;
    }) {
      const outcome = await answerOutcome(params, inputs.context as ChatMessage[] | null, env);
      const status: AnswerStatus = {
        node: key,
        status: outcome.status ?? "ok",
        reason: outcome.reason ?? null,
        params,
      };
      return { ...outcome, outputs: { answer: outcome.answer, status } };
    },
  });
}

async function answerOutcome(
  params: { max_tokens: number; input_cap: number | null },
  messages: ChatMessage[] | null,
  env: AnswerEnv,
): Promise<
  { answer: StoredAnswer | null; status?: "ok" | "invalid"; reason?: string; requests?: CallRecord[] }
> {
  if (env.contextReason !== null || messages === null) {
    return { answer: null, status: "invalid", reason: env.contextReason ?? "context invalid" };
  }
  const result = await env.chat.complete({ messages, max_tokens: params.max_tokens });
  if (!result.ok) return { answer: null, requests: [result.record], status: "invalid", reason: result.error };
  const answer: StoredAnswer = {
    content: result.content,
    usage: result.usage,
    model: result.model,
    finish_reason: result.finish_reason,
  };
  if (params.input_cap !== null && result.usage.prompt_tokens > params.input_cap) {
    return {
      answer,
      requests: [result.record],
      status: "invalid",
      reason:
        `provider counted ${result.usage.prompt_tokens} input tokens, over the ${params.input_cap} ceiling`,
    };
  }
  return { answer, requests: [result.record] };
}

/** An answer stage's declaration. */
export type AnswerStageDef = ReturnType<typeof answerStageDef>;

/** Runs (or, in check-only mode, skips) one answer; never reused from a frozen run. */
export async function answerStage(
  executor: Executor,
  request: AnswerRequest,
): Promise<
  {
    node: NodeResult<{ answer: StoredAnswer | null; status: AnswerStatus }>;
    answer: StoredAnswer | null;
    valid: boolean;
  }
> {
  const contextNode = request.context;
  const messages = contextNode.outputs.messages;
  const contextValid = contextNode.node.status === "ok" && messages !== null;
  const node = await executor.runStage(request.stage, {
    label: request.label,
    params: { ...request.params, max_tokens: request.maxTokens, input_cap: request.inputCap },
    inputs: { context: contextNode.node.outputs.messages },
    values: { context: messages },
    provider: contextValid,
  }, {
    chat: request.chat,
    contextReason: contextValid ? null : contextNode.node.reason ?? "context invalid",
  });
  const stored = node.outputs.answer;
  return { node, answer: stored, valid: node.node.status === "ok" && stored !== null };
}

type RowParams = Record<string, string> & { generation: number; answer_index: number };
const RowAnswerSchema = StoredAnswerSchema.nullable();

/**
 * Every answer row of a rows or aggregate node's inputs (`status:<row>`, `answer:<row>`, `score:<row>`,
 * `info:<row>`) as `build` makes it, sorted by method (row field `field`, in `methods`' order), generation, answer.
 */
export function answerRows<S, I, R extends { generation: number; answer_index: number }>(
  inputs: Record<string, unknown>,
  schemas: { score: z.ZodType<S>; info: z.ZodType<I> },
  order: { field: string; methods: readonly string[] },
  build: (r: {
    row: string;
    status: AnswerStatus;
    answer: StoredAnswer | null;
    score: S;
    info: I;
    valid: boolean;
    params: RowParams;
  }) => R,
): R[] {
  const rank = new Map<unknown, number>(order.methods.map((m, i) => [m, i]));
  const of = (r: R) => rank.get((r as Record<string, unknown>)[order.field])!;
  return rowIds(inputs).map((row) => {
    const status = AnswerStatusSchema.parse(inputs[rowInput("status", row)]);
    const answer = RowAnswerSchema.parse(inputs[rowInput("answer", row)]);
    const score = schemas.score.parse(inputs[rowInput("score", row)]);
    const info = schemas.info.parse(inputs[rowInput("info", row)]);
    const valid = status.status === "ok" && answer !== null;
    return build({ row, status, answer, score, info, valid, params: status.params as RowParams });
  }).sort((a, b) => of(a) - of(b) || a.generation - b.generation || a.answer_index - b.answer_index);
}

/** What `--check-only` found: answer inputs compared with the frozen run's, by label. */
export interface CheckOnlyReport {
  compared: number;
  differing: string[];
  missing: string[];
}

/** Collects the check-only comparison of every answer input. */
export class CheckOnlyComparison {
  readonly #report: CheckOnlyReport = { compared: 0, differing: [], missing: [] };

  /** Compares the answer input of `label` with the frozen run's (no-op outside check-only mode). */
  record(executor: Executor, label: string, contextHash: string | undefined): void {
    if (!executor.checkOnly || !executor.frozen) return;
    const frozenNode = executor.frozen.byLabel(label);
    if (!frozenNode) this.#report.missing.push(label);
    else {
      this.#report.compared++;
      if (frozenNode.inputs.context !== contextHash) this.#report.differing.push(label);
    }
  }

  /** The report with sorted lists (null outside check-only mode). */
  report(executor: Executor): CheckOnlyReport | null {
    if (!executor.checkOnly) return null;
    return {
      compared: this.#report.compared,
      differing: [...this.#report.differing].sort(),
      missing: [...this.#report.missing].sort(),
    };
  }
}
