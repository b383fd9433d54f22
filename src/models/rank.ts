/**
 * Ranking evidence units with the decision model: one noul per unit, the task as the state; order by strictly
 * descending probability, ties by unit id (code-unit order, not locale-aware).
 * @module
 */
import type { DecisionModel, NoulQuestion, Ranking, RankUnit } from "./types.ts";

/** The noul question asked about one unit. */
export function rankQuestion(unit: RankUnit): NoulQuestion {
  return {
    type: "noul",
    instructions: `Is this unit useful for the task? Unit id: ${unit.id}\n\n${unit.text}`,
  };
}

/** Orders unit ids by descending probability, ties by id (code-unit order). */
export function orderByProbability(probabilities: Record<string, number>): string[] {
  return Object.keys(probabilities).sort((a, b) => {
    const difference = probabilities[b] - probabilities[a];
    if (difference !== 0) return difference;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** {@link orderByProbability}'s order, sorted by position (no id lookups); non-finite nouls as before. */
function orderUnits(
  units: RankUnit[],
  nouls: readonly number[],
  probabilities: Record<string, number>,
): string[] {
  if (!nouls.every(Number.isFinite)) return orderByProbability(probabilities);
  const ids = units.map((unit) => unit.id);
  return ids.map((_, index) => index).sort((a, b) => {
    const difference = nouls[b] - nouls[a];
    if (difference !== 0) return difference;
    return ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0;
  }).map((index) => ids[index]);
}

/** Ranks `units` for `task` (a duplicate id is a RangeError); a failed call gives `{ok: false}` with its records. */
export async function rank(decision: DecisionModel, units: RankUnit[], task: string): Promise<Ranking> {
  const seen = new Set<string>();
  for (const unit of units) {
    if (seen.has(unit.id)) throw new RangeError(`rank: duplicate unit id ${JSON.stringify(unit.id)}`);
    seen.add(unit.id);
  }
  const result = await decision.ask(task, units.map(rankQuestion));
  if (!result.ok) return { ok: false, error: result.error, records: result.records };
  const probabilities: Record<string, number> = {};
  units.forEach((unit, index) => probabilities[unit.id] = result.nouls[index]);
  return {
    ok: true,
    order: orderUnits(units, result.nouls, probabilities),
    probabilities,
    model: result.model,
    usage: result.usage,
    records: result.records,
  };
}
