/**
 * What the pure sweep stages need besides their inputs: the token counter and the fixture (trajectory and
 * oracle) the run's `trajectory` source is.
 *
 * @module
 */
import type { TokenCounter } from "../../../tokens/types.ts";
import type { SweepFixture } from "../fixture.ts";

/** The environment of the sweep stages. */
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
