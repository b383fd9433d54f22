/**
 * `hotpot-engine`: a context engine used as a hotpot method compacts one question's public history (system
 * prompt, task, the read_file calls and results) to the evidence space every method has: the ceiling less the
 * reserve, the head, the framing and the evaluation question.
 * Frozen per generation before any answer, like a ranking or a summary (a `--frozen-run` reuses it by key: the
 * key holds the engine's spec and its adapter files' hashes). The context stage appends the question and
 * checks the complete input against the ceiling.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import {
  ENGINE_STAGE_PARAMS,
  ENGINE_WINDOW_OUTPUT,
  publicHistory,
  runEngineStage,
} from "../../../../methods/engine_method.ts";
import { evidenceSpaceOf } from "../methods.ts";
import type { HotpotModelEnv } from "./compress.ts";
import { StoredQuestionSchema } from "./question.ts";

const EngineParams = z.object({
  method: z.string(),
  ...ENGINE_STAGE_PARAMS,
  chat_model: z.string(),
  decision_model: z.string(),
});

/** The `hotpot-engine` stage. */
export const hotpotEngineStage = defineStage({
  name: "hotpot-engine",
  version: 1,
  doc: "A context engine's compaction of one question's public history (one generation), to the evidence " +
    "space every method has under the ceiling.",
  params: EngineParams,
  inputs: ["question"],
  outputs: { window: ENGINE_WINDOW_OUTPUT },
  provider: true,
  async run({ params, inputs, key, env }: {
    params: z.infer<typeof EngineParams>;
    inputs: Record<string, unknown>;
    key: string;
    env: HotpotModelEnv;
  }) {
    const { counter } = env;
    if (counter.hash !== params.tokenizer) {
      throw new Error(`hotpot-engine: tokenizer ${params.tokenizer} needed`);
    }
    const question = StoredQuestionSchema.parse(inputs.question);
    const usage = { calls: 0, input_tokens: 0, output_tokens: 0 };
    if (!question.valid) {
      const window = { node: key, ok: false, messages: null, reason: "collection invalid", usage };
      return { outputs: { window }, status: "invalid" as const, reason: "collection invalid" };
    }
    // The evidence space every method of the run has: the ceiling less the reserve, the head (system prompt
    // and task), the framing and the evaluation question. The engine's whole window (its head included) must
    // fit there, so a window that keeps the head costs the engine what the head costs every other method.
    const budget = evidenceSpaceOf(counter, question, params.input_cap - params.reserve);
    return await runEngineStage(
      params.engine,
      params.method,
      env,
      publicHistory(question.trajectory),
      budget,
      counter,
      key,
    );
  },
});
