/**
 * `hotpot-context`: renders one method's answer input (pure) and counts it exactly. A compressed method's
 * input above the ceiling is invalid (never shrunk, never sent); `full` may exceed it and is recorded.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
import { compactedContext, fullContext, HOTPOT_METHODS, jevKept, unitsById } from "../methods.ts";
import { StoredQuestionSchema } from "./question.ts";
import { StoredRankingSchema, StoredSummarySchema } from "../../stored.ts";
import { overBudgetReason, withinCeiling } from "../../over_budget.ts";

/** A context node's `info` output (every field null when no input was rendered). */
export const ContextInfoSchema = z.object({
  /** The node key, so that every context node has an output of its own. */
  node: z.string(),
  tokens: z.number().int().nullable(),
  within_cap: z.boolean().nullable(),
  kept: z.array(z.string()).nullable(),
  summary_tokens: z.number().int().nullable(),
});
/** A context node's `info` output. */
export type ContextInfo = z.infer<typeof ContextInfoSchema>;

/** What the pure hotpot stages need besides their inputs. */
export interface HotpotStageEnv {
  counter: TokenCounter;
}

/** The `hotpot-context` stage. */
export const hotpotContextStage = defineStage({
  name: "hotpot-context",
  version: 2,
  doc: "One method's answer input rendered from the question and its compression artifacts, counted exactly.",
  params: z.object({
    method: z.enum(HOTPOT_METHODS),
    input_cap: z.number().int(),
    reserve: z.number().int(),
    tokenizer: z.string(),
  }),
  inputs: ["question", "ranking", "summary"],
  outputs: {
    messages: { schema: z.array(ChatMessageSchema).nullable(), doc: "the answer input (null when invalid)" },
    info: { schema: ContextInfoSchema, doc: "exact token count, within the ceiling, kept units" },
  },
  provider: false,
  // Always rebuilt by this program, never taken from a frozen run: --check-only must compare what this code
  // renders (a changed framing keeps the key) with the frozen run's answer inputs.
  reuseFrozen: false,
  run(
    { params, inputs, key, env }: {
      params: {
        method: typeof HOTPOT_METHODS[number];
        input_cap: number;
        reserve: number;
        tokenizer: string;
      };
      inputs: Record<string, unknown>;
      key: string;
      env: HotpotStageEnv;
    },
  ) {
    const { counter } = env;
    if (counter.hash !== params.tokenizer) {
      throw new Error(`hotpot-context: tokenizer ${params.tokenizer} needed`);
    }
    const question = StoredQuestionSchema.parse(inputs.question);
    const ranking = inputs.ranking === undefined ? undefined : StoredRankingSchema.parse(inputs.ranking);
    const summary = inputs.summary === undefined ? undefined : StoredSummarySchema.parse(inputs.summary);
    const method = params.method;
    const limit = params.input_cap - params.reserve;
    const empty = { node: key, tokens: null, within_cap: null, kept: null, summary_tokens: null };
    const fail = (reason: string) =>
      Promise.resolve({ outputs: { messages: null, info: empty }, status: "invalid" as const, reason });
    if (!question.valid) return fail("collection invalid");
    let messages: ChatMessage[];
    let kept: string[] | null = null;
    let summaryTokens: number | null = null;
    if (method === "full") messages = fullContext(question);
    else if (method === "jev") {
      if (!ranking?.ok) return fail(`ranking failed: ${ranking?.error}`);
      const selection = jevKept(counter, question, ranking.order, limit);
      messages = compactedContext(question, selection.kept, "");
      kept = selection.kept.map((u) => u.id);
    } else {
      if (!summary?.ok || summary.text === null) return fail(`summary invalid: ${summary?.reason}`);
      kept = summary.kept ?? [];
      messages = compactedContext(question, unitsById(question, kept), summary.text);
      summaryTokens = counter.countText(summary.text);
    }
    const tokens = countPrompt(counter, messages);
    const info: ContextInfo = {
      node: key,
      tokens,
      within_cap: withinCeiling(tokens, limit),
      kept,
      summary_tokens: summaryTokens,
    };
    if (method !== "full" && !withinCeiling(tokens, limit)) {
      return Promise.resolve({
        outputs: { messages, info },
        status: "invalid" as const,
        reason: overBudgetReason(tokens, limit),
      });
    }
    return Promise.resolve({ outputs: { messages, info } });
  },
});
