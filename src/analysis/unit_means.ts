/**
 * Per-unit means of result rows by condition, each unit averaged first so every unit weighs the same.
 * @module
 */

/** How to read a row: its condition, its unit id, and its value of a metric. */
export interface UnitAccessors<R> {
  condition: (row: R) => string;
  unit: (row: R) => string;
  value: (row: R) => number;
}

/** condition → unit id → the mean of that unit's values. */
export function unitMeans<R>(rows: readonly R[], get: UnitAccessors<R>): Map<string, Map<string, number>> {
  const sums = new Map<string, Map<string, [number, number]>>();
  for (const row of rows) {
    const c = get.condition(row);
    let units = sums.get(c);
    if (!units) sums.set(c, units = new Map());
    const u = get.unit(row);
    const acc = units.get(u) ?? [0, 0];
    acc[0] += get.value(row);
    acc[1] += 1;
    units.set(u, acc);
  }
  return new Map([...sums].map(([c, units]) => [c, new Map([...units].map(([u, [s, n]]) => [u, s / n]))]));
}

/** Values of `ids` in order from a unit map (a missing unit is 0, as an invalid condition would be). */
export function column(units: ReadonlyMap<string, number> | undefined, ids: readonly string[]): Float64Array {
  return Float64Array.from(ids, (id) => units?.get(id) ?? 0);
}
