/**
 * The unit every compaction method works on: a lossless, id-stable piece of original evidence with its text
 * and its position in the source.
 *
 * @module
 */

/** A piece of original evidence: stable id (`rocket-moon-band#0-2`), source position, text as shown. */
export interface EvidenceUnit {
  id: string;
  position: number;
  text: string;
}

/** Units with the given ids, in source order. */
export function inSourceOrder(units: readonly EvidenceUnit[], ids: Iterable<string>): EvidenceUnit[] {
  const wanted = new Set(ids);
  return bySourcePosition(units.filter((u) => wanted.has(u.id)));
}

/** `kept` sorted by position in place (stable), as {@link inSourceOrder} orders what it keeps. */
export function bySourcePosition(kept: EvidenceUnit[]): EvidenceUnit[] {
  // Units mostly come in source order already; the sort is stable, so skipping it then changes nothing.
  for (let i = 1; i < kept.length; i++) {
    if (kept[i - 1].position > kept[i].position) return kept.sort((a, b) => a.position - b.position);
  }
  return kept;
}

/** The units' texts joined by a blank line, in the order given. */
export function joinUnits(units: readonly EvidenceUnit[]): string {
  return units.map((u) => u.text).join("\n\n");
}
