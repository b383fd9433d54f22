/**
 * `hotpot-context`: one method's answer input (pure), counted exactly: a declared method's evidence from the
 * question's units and its artifacts, or an engine's window with the evaluation question appended.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../../models/messages.ts";
import { countPrompt } from "../../../../tokens/budget.ts";
import type { TokenCounter } from "../../../../tokens/types.ts";
import { fullContext, hotpotFrame } from "../methods.ts";
import { storedQuestion } from "./question.ts";
import { StoredRankingSchema, StoredSummarySchema } from "../../../stored.ts";
import { contextOutcome } from "../../../answer_pipeline.ts";
import { contextNeeds, declaredMethod, type MethodArtifacts } from "../../../../methods/registry.ts";
import { StoredWindowSchema } from "../../../../methods/engine_method.ts";
import { evaluationQuestion } from "../answer_frame.ts";

/** A context node's `info` output (every field null when no input was rendered; `node`: its key). */
export const ContextInfoSchema = z.object({
  node: z.string(),
  tokens: z.number().int().nullable(),
  within_cap: z.boolean().nullable(),
  kept: z.array(z.string()).nullable(),
  summary_tokens: z.number().int().nullable(),
});

const Params = z.object({
  method: z.string(),
  input_cap: z.number().int(),
  reserve: z.number().int(),
  tokenizer: z.string(),
});

/** The `hotpot-context` stage. */
export const hotpotContextStage = defineStage({
  name: "hotpot-context",
  version: 2,
  doc: "One method's answer input rendered from the question and its compression artifacts, counted exactly.",
  params: Params,
  inputs: ["question", "ranking", "summary", "window"],
  outputs: {
    messages: { schema: z.array(ChatMessageSchema).nullable(), doc: "the answer input (null when invalid)" },
    info: { schema: ContextInfoSchema, doc: "exact token count, within the ceiling, kept units" },
  },
  provider: false,
  // Always rebuilt: --check-only compares what this code renders with the frozen run's answer inputs.
  reuseFrozen: false,
  run({ params, inputs, key, env }: {
    params: z.infer<typeof Params>;
    inputs: Record<string, unknown>;
    key: string;
    env: { counter: TokenCounter };
  }) {
    const { counter } = env;
    if (counter.hash !== params.tokenizer) {
      throw new Error(`hotpot-context: tokenizer ${params.tokenizer} needed`);
    }
    const question = storedQuestion(inputs.question);
    const ranking = inputs.ranking === undefined ? undefined : StoredRankingSchema.parse(inputs.ranking);
    const summary = inputs.summary === undefined ? undefined : StoredSummarySchema.parse(inputs.summary);
    const limit = params.input_cap - params.reserve;
    const empty = { node: key, tokens: null, within_cap: null, kept: null, summary_tokens: null };
    const fail = (reason: string) =>
      Promise.resolve({ outputs: { messages: null, info: empty }, status: "invalid" as const, reason });
    if (!question.valid) return fail("collection invalid");
    let messages: ChatMessage[];
    let kept: string[] | null = null;
    let summaryTokens: number | null = null;
    let ceilingBinds = true;
    let counted: number | undefined; // where the method counted this very input already
    if (inputs.window !== undefined) {
      // An engine method: its window, then the evaluation question.
      const window = StoredWindowSchema.parse(inputs.window);
      if (!window.ok || window.messages === null) return fail(window.reason ?? "engine failed");
      messages = [...window.messages, { role: "user", content: evaluationQuestion(question.question) }];
    } else {
      const method = declaredMethod(params.method);
      if (!method) throw new Error(`hotpot-context: no method ${params.method} is declared`);
      ceilingBinds = method.ceilingBinds;
      const artifacts: MethodArtifacts = {};
      const needs = contextNeeds(method);
      if (needs.includes("ranking")) {
        if (!ranking?.ok) return fail(`ranking failed: ${ranking?.error}`);
        artifacts.order = ranking.order;
      }
      if (needs.includes("summary")) {
        if (!summary?.ok || summary.text === null) return fail(`summary invalid: ${summary?.reason}`);
        artifacts.summary = { text: summary.text, kept: summary.kept ?? [] };
      }
      const frame = hotpotFrame(counter, question, limit);
      const evidence = method.evidence(frame, artifacts, {});
      if (evidence === null) messages = fullContext(question);
      else {
        messages = frame.render(evidence.kept, evidence.summary);
        counted = evidence.tokens;
        kept = artifacts.summary ? [...artifacts.summary.kept] : evidence.kept.map((u) => u.id);
        if (artifacts.summary) summaryTokens = counter.countText(artifacts.summary.text);
      }
    }
    const tokens = counted ?? countPrompt(counter, messages);
    const info = { node: key, kept, summary_tokens: summaryTokens };
    return contextOutcome(messages, tokens, limit, ceilingBinds, info);
  },
});
