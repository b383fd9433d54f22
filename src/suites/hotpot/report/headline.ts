/**
 * What a person reads first about a hotpot run (REPORT.md, report.html, terminal): the hypothesis verdict and
 * the warnings that its numbers test nothing (a ceiling that did not bind, mostly invalid conditions).
 * @module
 */
import { MOSTLY_INVALID_SHARE } from "../../../analysis/mostly_invalid.ts";
import { Rational } from "../run/exact_mean.ts";

/** What the warnings need of a method's aggregate. */
export interface HeadlineInput extends HypothesisInput {
  valid: number;
  planned: number;
  over_cap: number;
}

/** A rational share as a percentage with one decimal, for display (the verdict never uses it). */
const points = (x: Rational) => (100 * x.toNumber()).toFixed(1);

/**
 * The verdict in lines that fit 80 columns: the claim, the four EMs with the gap to Full, the verdict last.
 *
 * @example
 * ```ts
 * hypothesisLines([{ method: "full", em_exact: "4/5" }]).at(-1); // "  verdict: not evaluated (…)"
 * ```
 */
export function hypothesisLines(aggregates: readonly HypothesisInput[]): string[] {
  const claim = "hypothesis: Jev+Summary beats Jev and Summary in EM, within 5 points of Full";
  const v = hypothesisVerdict(aggregates);
  if (v === null) return [claim, "  verdict: not evaluated (the run did not include all four methods)"];
  const zero = new Rational(0n);
  const relation = v.gap.compare(zero) >= 0
    ? `${points(v.gap)} below Full`
    : `${points(zero.sub(v.gap))} above Full`;
  const failed = [
    ...(v.beats ? [] : ["does not beat both"]),
    ...(v.within ? [] : ["> 5 below Full"]),
  ];
  return [
    claim,
    `  EM: Jev+Summary ${points(v.em.fusion)}, Jev ${points(v.em.jev)}, Summary ${points(v.em.summary)}, ` +
    `Full ${points(v.em.full)}; ${relation}`,
    `  verdict (descriptive): ${v.holds ? "holds" : `does not hold (${failed.join("; ")})`}`,
  ];
}

/**
 * The warnings heading the reports and terminal: the ceiling did not bind for over half of the `questions`
 * (nothing to compact), and per method over half of its conditions invalid (its figures measure failures).
 */
export function hotpotWarnings(
  aggregates: readonly HeadlineInput[],
  questions: number | null,
  inputCap: number,
): string[] {
  const out: string[] = [];
  const full = aggregates.find((a) => a.method === "full");
  if (full !== undefined && questions !== null && questions > 0) {
    const under = Math.max(0, questions - full.over_cap);
    if (under > questions / 2) {
      out.push(
        `The ceiling did not bind for ${under} of ${questions} questions: their Full context fits within ` +
          `${inputCap} tokens, so they needed no compaction and the methods' differences there test nothing ` +
          `(raise --min-chars or lower --input-cap).`,
      );
    }
  }
  for (const a of aggregates) {
    if (a.planned > 0 && (a.planned - a.valid) / a.planned > MOSTLY_INVALID_SHARE) {
      out.push(
        `Most conditions of ${a.method} were invalid (${
          a.planned - a.valid
        } of ${a.planned}): they count zero, ` +
          `so its figures measure the failures, not the method (not a finding).`,
      );
    }
  }
  return out;
}

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
