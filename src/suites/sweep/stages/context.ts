/**
 * `sweep-context`: renders `full`, `S` or `S + Top N` (exactly the generation's S plus the first N ranked units
 * in source order) and counts it exactly; over budget, it is recorded invalid, never shrunk and never sent (the
 * shared stage: `answer_pipeline.ts`); and `sweep-answer`, the shared answer stage under the sweep's name.
 *
 * @module
 */
import { z } from "zod";
import type { MethodParams } from "../../../methods/registry.ts";
import { answerStageDef, defineContextStage } from "../../answer_pipeline.ts";
import { compactedSweepContext, fullSweepContext, summarySweepContext } from "../contexts.ts";
import { checkSweepEnv, type SweepStageEnv, SweepUnitsSchema } from "./compress.ts";

/** A sweep context node's `info` output (counts null when no input was rendered). */
export const SweepContextInfoSchema = z.object({
  node: z.string(),
  tokens: z.number().int().nullable(),
  within_cap: z.boolean().nullable(),
  kept: z.array(z.string()),
});

/** The `sweep-context` stage. */
export const sweepContextStage = defineContextStage({
  name: "sweep-context",
  doc:
    "One context kind (full, S, S+TopN) rendered and counted exactly; over budget is recorded, never sent.",
  params: {
    kind: z.string(),
    top_n: z.number().int(),
    input_cap: z.number().int(),
    reserve: z.number().int(),
    tokenizer: z.string(),
    fixture: z.string(),
  },
  inputs: ["units", "summary", "ranking", "window"],
  info: SweepContextInfoSchema,
  empty: { kept: [] },
  // Kept ids in rank order when a ranking chose them, else in source order.
  listed(evidence, { order }) {
    const ids = new Set(evidence.kept.map((u) => u.id));
    return { kept: order ? order.filter((id) => ids.has(id)) : evidence.kept.map((u) => u.id) };
  },
  summaryFirst: true,
  unit(params, inputs, env: SweepStageEnv) {
    checkSweepEnv(env, params);
    const { fixture, counter } = env;
    const units = SweepUnitsSchema.parse(inputs.units);
    return {
      // With a summary, exactly the S framing (summarySweepContext); without, the same framing minus S.
      frame: (limit, summary) => ({
        counter,
        units,
        render: (chosen, text) =>
          (summary ? summarySweepContext : compactedSweepContext)(
            fixture.trajectory,
            text,
            chosen,
            fixture.followUp,
          ),
        limit,
      }),
      full: () => fullSweepContext(fixture.trajectory, fixture.followUp),
      question: fixture.followUp,
    };
  },
  // S is the registry's `summary`, S + Top N its `summary+top` with n = N (the sweep's protocol); any other
  // kind is a declared method by name (src/methods/registry.ts), `full` too. All build over the sweep's units.
  method: ({ kind, top_n: n }): { name: string; params: MethodParams } => ({
    name: kind === "S" ? "summary" : kind.startsWith("S+Top") ? "summary+top" : kind,
    params: kind.startsWith("S+Top") ? { n } : {},
  }),
});

/** The `sweep-answer` stage: the answer stage hotpot and sweep share (`src/suites/answer_pipeline.ts`). */
export const sweepAnswerStage = answerStageDef("sweep-answer");
