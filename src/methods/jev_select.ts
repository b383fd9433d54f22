/**
 * The Jev method's selection: whole units in the decision model's rank order while the complete answer input
 * still fits (exact counts of the whole rendered prompt, never estimates), rendered in source order.
 *
 * @module
 */
import type { ChatMessage } from "../models/messages.ts";
import { fitUnitsInOrder } from "../tokens/budget.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { type EvidenceUnit, inSourceOrder } from "./evidence_unit.ts";

/**
 * The longest prefix of `order` (unit ids, best first) whose units, rendered in source order by `build`, give
 * a complete prompt of at most `limit` tokens: the kept units (source order) and that prompt's count.
 */
export function selectRankedUnits(
  counter: TokenCounter,
  units: readonly EvidenceUnit[],
  order: readonly string[],
  build: (kept: EvidenceUnit[]) => ChatMessage[],
  limit: number,
): { kept: EvidenceUnit[]; tokens: number } {
  const byId = new Map(units.map((u) => [u.id, u]));
  const ranked = order.map((id) => {
    const unit = byId.get(id);
    if (!unit) throw new Error(`ranking names unknown unit ${id}`);
    return unit;
  });
  const fit = fitUnitsInOrder(
    counter,
    ranked,
    (chosen) => build(inSourceOrder(units, chosen.map((u) => u.id))),
    limit,
  );
  return { kept: inSourceOrder(units, fit.chosen.map((u) => u.id)), tokens: fit.tokens };
}
