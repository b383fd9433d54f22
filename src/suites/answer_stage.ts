/**
 * The answer stage both gold-scored suites share: ask the chat model once for a rendered answer input, check
 * the provider's reported input tokens against the ceiling, and — in check-only mode — compare the rebuilt
 * answer input with the one the frozen run recorded under the same label.
 *
 * @module
 */
import { z } from "zod";
import type { Executor, NodeResult, StageOutcome } from "../pipeline/executor.ts";
import type { ChatMessage } from "../models/messages.ts";
import type { ChatModel } from "../models/types.ts";

/** Version of the answer stages (2: a `status` output carrying the node key). */
export const ANSWER_STAGE_VERSION = 2;

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

/** An answer node's `status` output (see {@link AnswerStatus}). */
export const AnswerStatusSchema = z.object({
  node: z.string(),
  status: z.enum(["ok", "invalid"]),
  reason: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
});

/**
 * An answer node's `status` output: whether the answer is valid and why not, with the node's key and params,
 * so that every answer node has an output of its own (two answers with the same text have the same `answer`
 * blob) and the aggregate reads each answer's status from a blob.
 */
export interface AnswerStatus {
  node: string;
  status: "ok" | "invalid";
  reason: string | null;
  params: Record<string, unknown>;
}

/** One answer request. */
export interface AnswerRequest {
  stage: string;
  label: string;
  /** Key params (model name, indices…); transport settings stay out. */
  params: Record<string, unknown>;
  /** The context node: its `messages` output is the answer input. */
  context: NodeResult;
  chat: ChatModel;
  maxTokens: number;
  /** The ceiling the provider's input count is checked against; null when the condition may exceed it. */
  inputCap: number | null;
}

/** Runs (or, in check-only mode, skips) one answer; never reused from a frozen run. */
export async function answerStage(
  executor: Executor,
  request: AnswerRequest,
): Promise<{ node: NodeResult; answer: StoredAnswer | null; valid: boolean }> {
  const contextNode = request.context;
  const messages = contextNode.outputs.messages as ChatMessage[] | null;
  const contextValid = contextNode.node.status === "ok" && messages !== null;
  const params = { ...request.params, max_tokens: request.maxTokens, input_cap: request.inputCap };
  const node = await executor.execute(
    {
      stage: request.stage,
      version: ANSWER_STAGE_VERSION,
      label: request.label,
      params,
      inputs: { context: contextNode.node.outputs.messages },
      provider: contextValid,
      reuseFrozen: false,
      outputNames: ["answer", "status"],
    },
    async (key) => {
      const outcome = await answer();
      const status: AnswerStatus = {
        node: key,
        status: outcome.status ?? "ok",
        reason: outcome.reason ?? null,
        params,
      };
      return { ...outcome, outputs: { ...outcome.outputs, status } };
    },
  );
  async function answer(): Promise<StageOutcome> {
    if (!contextValid) {
      return {
        outputs: { answer: null },
        status: "invalid",
        reason: contextNode.node.reason ?? "context invalid",
      };
    }
    const result = await request.chat.complete({ messages: messages!, max_tokens: request.maxTokens });
    if (!result.ok) {
      return {
        outputs: { answer: null },
        requests: [result.record],
        status: "invalid",
        reason: result.error,
      };
    }
    const answer: StoredAnswer = {
      content: result.content,
      usage: result.usage,
      model: result.model,
      finish_reason: result.finish_reason,
    };
    if (request.inputCap !== null && result.usage.prompt_tokens > request.inputCap) {
      return {
        outputs: { answer },
        requests: [result.record],
        status: "invalid",
        reason:
          `provider counted ${result.usage.prompt_tokens} input tokens, over the ${request.inputCap} ceiling`,
      };
    }
    return { outputs: { answer }, requests: [result.record] };
  }
  const stored = node.outputs.answer as StoredAnswer | null;
  return { node, answer: stored, valid: node.node.status === "ok" && stored !== null };
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
