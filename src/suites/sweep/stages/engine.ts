/**
 * `sweep-engine`: a context engine used as a sweep method compacts the fixture's public history (system
 * prompt, task, the tool calls and results) to the evidence space every sweep context has under the ceiling
 * (the shared stage: `answer_pipeline.ts`).
 *
 * @module
 */
import { z } from "zod";
import { publicHistory } from "../../../methods/engine_method.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import { defineEngineStage } from "../../answer_pipeline.ts";
import { summarySweepContext } from "../contexts.ts";
import type { SweepModelEnv } from "./compress.ts";
import { checkSweepEnv } from "./trajectory.ts";

/** The `sweep-engine` stage. */
export const sweepEngineStage = defineEngineStage({
  name: "sweep-engine",
  // v2: the specs full, summary, jev, jev+summary run the declared methods (method_engine.ts).
  version: 2,
  doc:
    "A context engine's compaction of the sweep's public history (one generation), to the evidence space " +
    "every sweep context has under the ceiling.",
  name_param: "kind",
  params: { kind: z.string(), fixture: z.string() },
  // The trajectory node's units: so the engine node descends from the trajectory in the DAG.
  inputs: ["units"],
  history(params, _inputs, env: SweepModelEnv) {
    checkSweepEnv(env, params);
    const { counter, fixture } = env;
    const empty = summarySweepContext(fixture.trajectory, "", [], fixture.followUp);
    return {
      name: params.kind,
      messages: publicHistory(fixture.trajectory),
      budget: params.input_cap - params.reserve - countPrompt(counter, empty),
    };
  },
});
