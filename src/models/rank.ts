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

/** The units' probabilities by id: in `ids` order, or in the ids' code-unit order (as canonical JSON has them). */
function probabilitiesById(
  units: RankUnit[],
  nouls: readonly number[],
  ids: string[],
): Record<string, number> {
  const byId = new Map(units.map((unit, index) => [unit.id, nouls[index]]));
  const probabilities: Record<string, number> = {};
  for (const id of ids) probabilities[id] = byId.get(id)!;
  return probabilities;
}

/** {@link orderByProbability}'s order, sorted by position (no id lookups); non-finite nouls as before. */
function orderUnits(units: RankUnit[], nouls: readonly number[]): string[] {
  const ids = units.map((unit) => unit.id);
  if (!nouls.every(Number.isFinite)) return orderByProbability(probabilitiesById(units, nouls, ids));
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
  // Ids in code-unit order: the stored ranking is then written without a sorted copy (canonical.ts).
  const sorted = units.map((unit) => unit.id).sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
  return {
    ok: true,
    order: orderUnits(units, result.nouls),
    probabilities: probabilitiesById(units, result.nouls, sorted),
    model: result.model,
    usage: result.usage,
    records: result.records,
  };
}
