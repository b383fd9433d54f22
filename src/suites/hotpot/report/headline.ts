/**
 * What a person reads first about a hotpot run (REPORT.md, report.html, terminal): the hypothesis verdict and
 * the warnings that its numbers test nothing (a ceiling that did not bind, mostly invalid conditions).
 * @module
 */
import { MOSTLY_INVALID_SHARE } from "../../../analysis/mostly_invalid.ts";
import { type HypothesisInput, hypothesisVerdict } from "./hypothesis.ts";
import { Rational } from "../run/exact_mean.ts";

/** What the warnings need of a method's aggregate. */
export interface HeadlineInput extends HypothesisInput {
  valid: number;
  planned: number;
  over_cap: number;
}

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
