/**
 * The four hotpot methods as pure functions over one question's public material. They share one answer input
 * (answer_frame.ts) and one ceiling: `limit = input cap − reserve` for construction; the provider's reported
 * input tokens are checked against the cap afterwards.
 *
 * - `full`: the uncompressed history (allowed to exceed the ceiling).
 * - `jev`: whole groups in the decision model's rank order while the complete input fits, rendered in source
 *   order.
 * - `summary`: a summary of all evidence in the space left (summarize.ts retries shorter, never truncates).
 * - `jev+summary`: ranked groups within a share (40%) of the evidence space, then a summary of the rest in all
 *   the space left; the summarizer sees the retained groups.
 *
 * Units come from the question's articles, which the collection checks proved were read whole; no method
 * sees gold labels, and none retrieves discarded evidence.
 *
 * @module
 */
import { type EvidenceUnit as GenericUnit, joinUnits } from "../../methods/evidence_unit.ts";
import { selectRankedUnits } from "../../methods/jev_select.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { countPrompt, fitUnitsInOrder } from "../../tokens/budget.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { compactedAnswerInput, compactedEvidence, fullAnswerInput } from "./answer_frame.ts";
import type { CorpusQuestion } from "./corpus.ts";
import { renderUnit, sourceOrder, unitsFromArticles } from "./evidence.ts";

/** The methods, in report order. */
export const HOTPOT_METHODS = ["full", "jev", "summary", "jev+summary"] as const;
/** One of {@link HOTPOT_METHODS}. */
export type HotpotMethod = typeof HOTPOT_METHODS[number];

/** The public material a method may see. */
export type MethodInput = Pick<CorpusQuestion, "id" | "question" | "context" | "trajectory">;

/** The question's evidence units (sentence groups) in source order, rendered as `## title` + `N|text` lines. */
export function questionUnits(question: MethodInput): GenericUnit[] {
  return sourceOrder(unitsFromArticles(question.context)).map((unit, position) => ({
    id: unit.id,
    position,
    text: renderUnit(unit),
  }));
}

/** The task as the decision model and the summarizer see it: the original user task message. */
export function taskText(question: MethodInput): string {
  return question.trajectory[1]?.content ?? question.question;
}

/** The `full` answer input. */
export function fullContext(question: MethodInput): ChatMessage[] {
  return fullAnswerInput(question.trajectory, question.question);
}

/** A compacted answer input from kept units (source order) and a summary. */
export function compactedContext(
  question: MethodInput,
  kept: readonly GenericUnit[],
  summary: string,
): ChatMessage[] {
  return compactedAnswerInput(
    question.trajectory,
    compactedEvidence(joinUnits(kept), summary),
    question.question,
  );
}

/** The `jev` selection: ranked whole groups while the complete input fits `limit`. */
export function jevKept(
  counter: TokenCounter,
  question: MethodInput,
  order: readonly string[],
  limit: number,
): { kept: GenericUnit[]; tokens: number } {
  const units = questionUnits(question);
  return selectRankedUnits(counter, units, order, (kept) => compactedContext(question, kept, ""), limit);
}

/** The evidence space: tokens left for evidence when the input holds none. */
export function evidenceSpaceOf(counter: TokenCounter, question: MethodInput, limit: number): number {
  return limit - countPrompt(counter, compactedContext(question, [], ""));
}

/** The fusion's retained groups: ranked whole groups within `share` of the evidence space. */
export function fusionKept(
  counter: TokenCounter,
  question: MethodInput,
  order: readonly string[],
  limit: number,
  share: number,
): GenericUnit[] {
  const units = questionUnits(question);
  const byId = new Map(units.map((u) => [u.id, u]));
  const ranked = order.map((id) => byId.get(id)!).filter(Boolean);
  const empty = countPrompt(counter, compactedContext(question, [], ""));
  const allowance = empty + Math.floor(share * (limit - empty));
  const fit = fitUnitsInOrder(
    counter,
    ranked,
    (chosen) => compactedContext(question, [...chosen].sort((a, b) => a.position - b.position), ""),
    allowance,
  );
  return [...fit.chosen].sort((a, b) => a.position - b.position);
}

/** Units with the given ids, in source order. */
export function unitsById(question: MethodInput, ids: readonly string[]): GenericUnit[] {
  const wanted = new Set(ids);
  return questionUnits(question).filter((u) => wanted.has(u.id));
}

/** All evidence as one text (for the summarizer), or the evidence not retained. */
export function evidenceText(units: readonly GenericUnit[]): string {
  return joinUnits(units);
}
