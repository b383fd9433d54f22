/**
 * The sweep compression stages, frozen per generation before any answer (none sees the follow-up or the
 * gold): `sweep-summary` (S within the complete input allowance), `sweep-rank` and `sweep-engine` (a context
 * engine compacts the public history to the evidence space every context has; the shared stage:
 * `answer_pipeline.ts`).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { summarizeWithin } from "../../../methods/summarize.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import { defineRankStage, type ModelStageEnv } from "../../rank_stage.ts";
import { StoredSummarySchema } from "../../stored.ts";
import { summarySweepContext, sweepTask } from "../contexts.ts";
import { publicHistory } from "../../../methods/engine_method.ts";
import { defineEngineStage } from "../../answer_pipeline.ts";
import { checkSweepEnv, type SweepStageEnv, SweepUnitsSchema } from "./trajectory.ts";

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
