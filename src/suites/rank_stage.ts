/**
 * The ranking stage both suites declare under their own names: one decision-model ranking of a unit's evidence
 * for its task, stored as `ranking` (every probability recorded, with the node key), or an invalid node; and
 * the env of the suites' model-calling stages.
 *
 * @module
 */
import { z } from "zod";
import { rank } from "../models/rank.ts";
import type { ChatModel, DecisionModel, RankUnit } from "../models/types.ts";
import type { LoopbackProxy } from "../models/loopback_proxy.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { defineStage } from "../pipeline/stage.ts";
import { StoredRankingSchema, type StoredRankingValue } from "./stored.ts";

/** What the suites' model-calling stages need (`endpoint`: the loopback chat endpoint outside engines get). */
export interface ModelStageEnv {
  decision: DecisionModel;
  chat: ChatModel;
  counter: TokenCounter;
  endpoint?: LoopbackProxy;
}

/** How a suite declares its `*-rank` stage (version 2). */
export interface RankStageDecl<S extends z.ZodRawShape, E extends { decision: DecisionModel }> {
  name: string;
  doc: string;
  params: S;
  inputs: readonly string[];
  /** The units to rank and the task they are ranked for, or why the unit is invalid. */
  units(
    params: z.infer<z.ZodObject<S>>,
    inputs: Record<string, unknown>,
    env: E,
  ): { units: readonly RankUnit[]; task: string } | { invalid: string };
}

/** A suite's ranking stage (see {@link RankStageDecl}). */
export function defineRankStage<S extends z.ZodRawShape, E extends { decision: DecisionModel }>(
  decl: RankStageDecl<S, E>,
) {
  const Params = z.object(decl.params);
  return defineStage({
    name: decl.name,
    version: 2,
    doc: decl.doc,
    params: Params,
    inputs: decl.inputs,
    outputs: {
      ranking: {
        schema: StoredRankingSchema.nullable(),
        doc: "unit ids by descending probability, with the node key",
      },
    },
    provider: true,
    async run({ params, inputs, key, env }: {
      params: z.infer<typeof Params>;
      inputs: Record<string, unknown>;
      key: string;
      env: E;
    }) {
      const plan = decl.units(params, inputs, env);
      if ("invalid" in plan) {
        const ranking: StoredRankingValue = { node: key, ok: false, order: [], error: plan.invalid };
        return { outputs: { ranking }, status: "invalid" as const };
      }
      const result = await rank(env.decision, [...plan.units], plan.task);
      if (!result.ok) {
        const ranking: StoredRankingValue = { node: key, ok: false, order: [], error: result.error };
        return {
          outputs: { ranking },
          requests: result.records,
          status: "invalid" as const,
          reason: result.error,
        };
      }
      const { order, probabilities, model } = result;
      return {
        outputs: { ranking: { node: key, ok: true, order, probabilities, model } },
        requests: result.records,
      };
    },
  });
}
