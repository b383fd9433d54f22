/**
 * hotpot's predeclared hypothesis (Jev+Summary beats Jev and Summary in EM, within 5 points of Full), decided
 * on exact rationals (`em_exact`: floating point never decides); descriptive, no significance test.
 * @module
 */
import { Rational } from "../run/exact_mean.ts";

/** What the verdict needs of a method's aggregate. */
export interface HypothesisInput {
  method: string;
  em_exact: string;
}

/** The largest gap to Full that is "within 5 points": 5/100. */
export const WITHIN_GAP = new Rational(5n, 100n);

/** The verdict's parts, or null when a method is missing. */
export interface HypothesisVerdict {
  beats: boolean;
  within: boolean;
  holds: boolean;
  /** Full's EM minus Jev+Summary's, exactly. */
  gap: Rational;
  em: { fusion: Rational; jev: Rational; summary: Rational; full: Rational };
}

/** Decides the hypothesis from the aggregates (null when one of the four methods is missing). */
export function hypothesisVerdict(aggregates: readonly HypothesisInput[]): HypothesisVerdict | null {
  const em = (m: string) => {
    const a = aggregates.find((x) => x.method === m);
    return a === undefined ? undefined : Rational.parse(a.em_exact);
  };
  const fusion = em("jev+summary");
  const jev = em("jev");
  const summary = em("summary");
  const full = em("full");
  if (!fusion || !jev || !summary || !full) return null;
  const beats = fusion.compare(jev) > 0 && fusion.compare(summary) > 0;
  const gap = full.sub(fusion);
  const within = gap.compare(WITHIN_GAP) <= 0;
  return { beats, within, holds: beats && within, gap, em: { fusion, jev, summary, full } };
}

/** A rational share as a percentage with one decimal, for display (the verdict never uses it). */
function points(x: Rational): string {
  return (100 * x.toNumber()).toFixed(1);
}

/** The hypothesis paragraph of the reports. */
export function hypothesisVerdictText(aggregates: readonly HypothesisInput[]): string {
  const claim =
    "Predeclared hypothesis: Jev+Summary exceeds both compressed baselines (Jev, Summary) in answer " +
    "EM and is within 5 points of Full.";
  const v = hypothesisVerdict(aggregates);
  if (v === null) return `${claim}\n\nNot evaluated: this run did not include all four methods.`;
  const relation = v.gap.compare(new Rational(0n)) >= 0
    ? `${points(v.gap)} points below Full`
    : `${points(new Rational(0n).sub(v.gap))} points above Full`;
  const observed = `Observed EM: Jev+Summary ${points(v.em.fusion)}, Jev ${points(v.em.jev)}, ` +
    `Summary ${points(v.em.summary)}, Full ${points(v.em.full)}.`;
  const comparison =
    `Jev+Summary ${v.beats ? "exceeds" : "does not exceed"} both compressed baselines and is ` +
    `${relation} (${
      v.within ? "within" : "not within"
    } 5 points of it; compared exactly: Full − Jev+Summary = ` +
    `${v.gap}).`;
  const verdict = v.holds
    ? "The observed numbers agree with it"
    : "The observed numbers do not agree with it";
  return `${claim}\n\n${observed} ${comparison} ${verdict} (descriptive only: no significance test).`;
}
