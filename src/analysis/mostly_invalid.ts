/**
 * The "not a finding" mark of a paired comparison whose A or B side was mostly invalid (invalid counts zero).
 * @module
 */

/** More than this share of a side's conditions invalid makes its comparisons "not a finding". */
export const MOSTLY_INVALID_SHARE = 0.5;

/** The note of comparing `a` with `b` (`noun`: what the conditions are); empty when neither is mostly invalid. */
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
