/**
 * The over-budget context rule both gold-scored suites share: a compressed context whose exact count of the
 * complete answer input exceeds `limit` (ceiling minus reserve) is recorded as invalid with this reason, never
 * shrunk and never sent; it counts zero in the aggregate.
 *
 * @module
 */

/** True when `tokens` fits under `limit` (the one definition of "within the ceiling"). */
export function withinCeiling(tokens: number, limit: number): boolean {
  return tokens <= limit;
}

/** The reason recorded on an over-budget context node. */
export function overBudgetReason(tokens: number, limit: number): string {
  return `over budget: ${tokens} tokens > ${limit} (recorded, never shrunk)`;
}
