/**
 * The sweep stages before any answer: `sweep-trajectory` (the fixture's evidence units as the methods see them,
 * so every later node descends from the trajectory) and, frozen per generation and blind to the follow-up and
 * the gold, `sweep-summary` (S within the complete input allowance), `sweep-rank` and `sweep-engine` (a context
 * engine compacts the public history to the evidence space every context has; shared: `answer_pipeline.ts`);
 * and the sweep stages' env.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { summarizeWithin } from "../../../methods/summarize.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import { defineEngineStage, defineRankStage, type ModelStageEnv } from "../../answer_pipeline.ts";
import { StoredSummarySchema } from "../../answer_pipeline.ts";
import { renderedUnits, summarySweepContext, sweepTask } from "../contexts.ts";
import { publicHistory } from "../../../methods/engine_method.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
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
    return Promise.resolve({ outputs: { units: renderedUnits(env.fixture.trajectory, env.fixture.units) } });
  },
});

/** What the sweep compression bodies need: the models, the counter and the fixture. */
export type SweepModelEnv = ModelStageEnv & SweepStageEnv;

const SummaryParams = z.object({
  generation: z.number().int(),
  allowance: z.number().int(),
  reserve: z.number().int(),
  tokenizer: z.string(),
  fixture: z.string(),
  chat_model: z.string(),
  max_retries: z.number().int(),
});

/** The `sweep-summary` stage. */
export const sweepSummaryStage = defineStage({
  name: "sweep-summary",
  version: 2,
  doc: "One generation's summary S of all evidence, within the complete input allowance.",
  params: SummaryParams,
  inputs: ["units"],
  outputs: { summary: { schema: StoredSummarySchema.nullable(), doc: "the summary S, with the node key" } },
  provider: true,
  async run({ params, inputs, key, env }: {
    params: z.infer<typeof SummaryParams>;
    inputs: Record<string, unknown>;
    key: string;
    env: SweepModelEnv;
  }) {
    checkSweepEnv(env, params);
    const { fixture, counter } = env;
    const units = SweepUnitsSchema.parse(inputs.units);
    const limit = params.allowance - params.reserve;
    const build = (summary: string) => summarySweepContext(fixture.trajectory, summary, [], fixture.followUp);
    const outcome = await summarizeWithin({
      chat: env.chat,
      task: sweepTask(fixture.trajectory),
      evidence: units.map((u) => u.text).join("\n\n"),
      space: limit - countPrompt(counter, build("")),
      promptTokens: (summary) => countPrompt(counter, build(summary)),
      limit,
      maxRetries: params.max_retries,
    });
    const requests = outcome.records;
    if (outcome.ok) {
      return {
        outputs: { summary: { node: key, ok: true, text: outcome.summary, attempts: outcome.attempts } },
        requests,
      };
    }
    const { reason } = outcome;
    const summary = { node: key, ok: false, text: outcome.summary ?? null, reason };
    return { outputs: { summary }, requests, status: "invalid" as const, reason };
  },
});

/** The `sweep-rank` stage. */
export const sweepRankStage = defineRankStage({
  name: "sweep-rank",
  doc: "One generation's ranking of the evidence units by the decision model.",
  params: { generation: z.number().int(), fixture: z.string(), decision_model: z.string() },
  inputs: ["units"],
  units(params, inputs, env: SweepModelEnv) {
    checkSweepEnv(env, params);
    return { units: SweepUnitsSchema.parse(inputs.units), task: sweepTask(env.fixture.trajectory) };
  },
});

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
