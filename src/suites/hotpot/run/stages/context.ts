/**
 * `hotpot-context`: one method's answer input (pure), counted exactly: a declared method's evidence from the
 * question's units and its artifacts, or an engine's window with the evaluation question appended (the shared
 * stage: `answer_pipeline.ts`); and `hotpot-answer`, the shared answer stage under hotpot's name.
 *
 * @module
 */
import { z } from "zod";
import type { TokenCounter } from "../../../../tokens/types.ts";
import { evaluationQuestion, fullContext, hotpotFrame } from "../methods.ts";
import { storedQuestion } from "./question.ts";
import { answerStageDef, defineContextStage } from "../../../answer_pipeline.ts";

/** A context node's `info` output (every field null when no input was rendered; `node`: its key). */
export const ContextInfoSchema = z.object({
  node: z.string(),
  tokens: z.number().int().nullable(),
  within_cap: z.boolean().nullable(),
  kept: z.array(z.string()).nullable(),
  summary_tokens: z.number().int().nullable(),
});

/** The `hotpot-context` stage. */
export const hotpotContextStage = defineContextStage({
  name: "hotpot-context",
  doc: "One method's answer input rendered from the question and its compression artifacts, counted exactly.",
  params: {
    method: z.string(),
    input_cap: z.number().int(),
    reserve: z.number().int(),
    tokenizer: z.string(),
  },
  inputs: ["question", "ranking", "summary", "window"],
  info: ContextInfoSchema,
  empty: { kept: null, summary_tokens: null },
  // A summary's kept units (fusion's) with the summary's count, else the units the method kept.
  listed: (evidence, { summary }, counter) => ({
    kept: summary ? [...summary.kept] : evidence.kept.map((u) => u.id),
    summary_tokens: summary ? counter.countText(summary.text) : null,
  }),
  // Always rebuilt: --check-only compares what this code renders with the frozen run's answer inputs.
  reuseFrozen: false,
  unit(params, inputs, { counter }: { counter: TokenCounter }) {
    if (counter.hash !== params.tokenizer) {
      throw new Error(`hotpot-context: tokenizer ${params.tokenizer} needed`);
    }
    const question = storedQuestion(inputs.question);
    if (!question.valid) return { invalid: "collection invalid" };
    return {
      frame: (limit) => hotpotFrame(counter, question, limit),
      full: () => fullContext(question),
      question: evaluationQuestion(question.question),
    };
  },
  method: (params) => ({ name: params.method, params: {} }),
});

/** The `hotpot-answer` stage: the answer stage hotpot and sweep share (`src/suites/answer_pipeline.ts`). */
export const hotpotAnswerStage = answerStageDef("hotpot-answer");
