/**
 * The outcome of a ranking stage, shared by the suites: one decision-model ranking of the units for the
 * task, stored as `ranking` (every probability recorded), or an invalid node with the reason.
 *
 * @module
 */
import { rank } from "../models/rank.ts";
import type { DecisionModel, RankUnit } from "../models/types.ts";
import type { StageOutcome } from "../pipeline/executor.ts";

/** A ranking as stored in a rank node's `ranking` output. */
export interface StoredRanking {
  /** The rank node's key (two generations with equal rankings still have outputs of their own). */
  node?: string;
  ok: boolean;
  /** Unit ids, strictly descending probability, ties by id; empty when the ranking failed. */
  order: string[];
  probabilities?: Record<string, number>;
  model?: string;
  error?: string;
}

/** Ranks `units` for `task` with the decision model and returns the stage outcome. */
export async function rankOutcome(
  decision: DecisionModel,
  units: readonly RankUnit[],
  task: string,
  key: string,
): Promise<StageOutcome> {
  const result = await rank(decision, [...units], task);
  if (!result.ok) {
    const ranking: StoredRanking = { node: key, ok: false, order: [], error: result.error };
    return { outputs: { ranking }, requests: result.records, status: "invalid", reason: result.error };
  }
  const ranking: StoredRanking = {
    node: key,
    ok: true,
    order: result.order,
    probabilities: result.probabilities,
    model: result.model,
  };
  return { outputs: { ranking }, requests: result.records };
}
