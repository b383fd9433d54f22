/**
 * The mark of a paired comparison whose A or B side was mostly invalid (e.g. every context over the ceiling):
 * invalid conditions count zero, so its difference measures those zeros, not the methods, and the reports say
 * "not a finding" beside it instead of printing it as one.
 *
 * @module
 */

/** More than this share of a side's conditions invalid makes its comparisons "not a finding". */
export const MOSTLY_INVALID_SHARE = 0.5;

/**
 * The note of comparing `a` with `b`, given each side's share of invalid conditions (0..1) and what the
 * conditions are called (`answers`, `conditions`); empty when neither side is mostly invalid.
 */
export function mostlyInvalidNote(
  invalidShare: (side: string) => number,
  a: string,
  b: string,
  noun: string,
): string {
  const sides = [a, b].filter((side) => invalidShare(side) > MOSTLY_INVALID_SHARE);
  if (sides.length === 0) return "";
  const which = sides.map((side) => `${side} ${Math.round(100 * invalidShare(side))}%`).join(", ");
  return `not a finding: mostly invalid ${noun} (${which} invalid)`;
}
