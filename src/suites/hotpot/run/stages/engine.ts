/**
 * `hotpot-engine`: a context engine used as a hotpot method compacts one question's public history (system
 * prompt, task, the read_file calls and results) to the evidence space every method has (the shared stage:
 * `answer_pipeline.ts`).
 *
 * @module
 */
import { z } from "zod";
import { publicHistory } from "../../../../methods/engine_method.ts";
import { defineEngineStage } from "../../../answer_pipeline.ts";
import { evidenceSpaceOf } from "../methods.ts";
import type { ModelStageEnv } from "../../../rank_stage.ts";
import { StoredQuestionSchema } from "./question.ts";

/** The `hotpot-engine` stage. */
export const hotpotEngineStage = defineEngineStage({
  name: "hotpot-engine",
  doc: "A context engine's compaction of one question's public history (one generation), to the evidence " +
    "space every method has under the ceiling.",
  name_param: "method",
  params: { method: z.string() },
  inputs: ["question"],
  history(params, inputs, env: ModelStageEnv) {
    if (env.counter.hash !== params.tokenizer) {
      throw new Error(`hotpot-engine: tokenizer ${params.tokenizer} needed`);
    }
    const question = StoredQuestionSchema.parse(inputs.question);
    if (!question.valid) return { invalid: "collection invalid" };
    // The engine's whole window (its head included) must fit the evidence space, so a window that keeps the
    // head costs the engine what the head costs every other method.
    return {
      name: params.method,
      messages: publicHistory(question.trajectory),
      budget: evidenceSpaceOf(env.counter, question, params.input_cap - params.reserve),
    };
  },
});
