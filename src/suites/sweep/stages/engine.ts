/**
 * `sweep-engine`: a context engine used as a sweep method compacts the fixture's public history (system
 * prompt, task, the tool calls and results) to the evidence space every sweep context has under the ceiling:
 * the ceiling less the reserve, the head, the framing and the follow-up. Frozen per generation before any
 * answer (a `--frozen-run` reuses it by key, which holds the spec and the adapter files' hashes); the context
 * stage appends the follow-up and checks the complete input against the ceiling.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import {
  ENGINE_STAGE_PARAMS,
  ENGINE_WINDOW_OUTPUT,
  publicHistory,
  runEngineStage,
} from "../../../methods/engine_method.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import { summarySweepContext } from "../contexts.ts";
import type { SweepModelEnv } from "./compress.ts";
import { checkSweepEnv } from "./env.ts";

const EngineParams = z.object({
  kind: z.string(),
  ...ENGINE_STAGE_PARAMS,
  fixture: z.string(),
  chat_model: z.string(),
  decision_model: z.string(),
});

/** The `sweep-engine` stage. */
export const sweepEngineStage = defineStage({
  name: "sweep-engine",
  version: 1,
  doc:
    "A context engine's compaction of the sweep's public history (one generation), to the evidence space " +
    "every sweep context has under the ceiling.",
  params: EngineParams,
  // The trajectory node's units: so the engine node descends from the trajectory in the DAG.
  inputs: ["units"],
  outputs: { window: ENGINE_WINDOW_OUTPUT },
  provider: true,
  async run({ params, key, env }: {
    params: z.infer<typeof EngineParams>;
    inputs: Record<string, unknown>;
    key: string;
    env: SweepModelEnv;
  }) {
    checkSweepEnv(env, params);
    const { counter, fixture } = env;
    const limit = params.input_cap - params.reserve;
    const empty = summarySweepContext(fixture.trajectory, "", [], fixture.followUp);
    return await runEngineStage(
      params.engine,
      params.kind,
      env,
      publicHistory(fixture.trajectory),
      limit - countPrompt(counter, empty),
      counter,
      key,
    );
  },
});
