/**
 * `sweep-trajectory`: the fixture's evidence units as the methods see them (provenance header plus the exact
 * original text), so that every later node descends from the trajectory in the DAG; and the sweep stages' env.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
import { renderedUnits } from "../contexts.ts";
import type { SweepFixture } from "../fixture.ts";

/** What the pure sweep stages need besides their inputs: the counter and the run's fixture. */
export interface SweepStageEnv {
  counter: TokenCounter;
  fixture: SweepFixture;
}

/** Refuses to run a stage whose params name another fixture or tokenizer than the environment's. */
export function checkSweepEnv(env: SweepStageEnv, params: { fixture: string; tokenizer?: string }): void {
  if (env.fixture.hash !== params.fixture) throw new Error(`sweep stage: fixture ${params.fixture} needed`);
  if (params.tokenizer !== undefined && env.counter.hash !== params.tokenizer) {
    throw new Error(`sweep stage: tokenizer ${params.tokenizer} needed`);
  }
}

/** The evidence units of a sweep trajectory. */
export const SweepUnitsSchema = z.array(
  z.object({ id: z.string(), position: z.number().int(), text: z.string() }),
);

/** The `sweep-trajectory` stage. */
export const sweepTrajectoryStage = defineStage({
  name: "sweep-trajectory",
  version: 1,
  doc: "The evidence units of the sweep trajectory, rendered with their provenance.",
  params: z.object({ fixture: z.string() }),
  inputs: ["file"],
  textInputs: ["file"],
  outputs: { units: { schema: SweepUnitsSchema, doc: "evidence units in source order" } },
  provider: false,
  run({ params, env }: { params: { fixture: string }; env: SweepStageEnv }) {
    checkSweepEnv(env, params);
    const units = renderedUnits(env.fixture.trajectory, env.fixture.units);
    return Promise.resolve({
      outputs: { units: units.map((u) => ({ id: u.id, position: u.position, text: u.text })) },
    });
  },
});
