/**
 * The hotpot frame of the declared methods (src/methods/registry.ts): one question's public material as
 * evidence units and the one answer input every method shares under `limit = input cap − reserve`.
 *
 * @module
 */
import { type EvidenceUnit as GenericUnit, joinUnits } from "../../../methods/evidence_unit.ts";
import { DEFAULT_UNIT_METHODS, type EvidenceFrame } from "../../../methods/registry.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
import { compactedAnswerInput, compactedEvidence, fullAnswerInput } from "./answer_frame.ts";
import type { CorpusQuestion } from "../corpus.ts";
import { renderUnit, sourceOrder, unitsFromArticles } from "./evidence.ts";

/** The declared methods a hotpot run measures by default, in report order. */
export const HOTPOT_METHODS = DEFAULT_UNIT_METHODS;
/** A hotpot method's name: a declared method (src/methods/registry.ts) or an engine method's name. */
export type HotpotMethod = string;

/** The frames of frozen questions, by question (few per question: one per counter and limit). */
const frozenQuestionFrames = new WeakMap<MethodInput, EvidenceFrame[]>();

/**
 * The hotpot frame of the methods: the question's units and compacted answer input. A frozen question's frame
 * is made once per counter and limit, frozen, so what a method computes from it is kept (`frameMemo`).
 */
export function hotpotFrame(counter: TokenCounter, question: MethodInput, limit: number): EvidenceFrame {
  const frames = frozenQuestionFrames.get(question);
  const known = frames?.find((f) => f.counter === counter && f.limit === limit);
  if (known !== undefined) return known;
  const frame: EvidenceFrame = {
    counter,
    units: questionUnits(question),
    render: (kept, summary) => compactedContext(question, kept, summary),
    limit,
  };
  // The render reads the question's text and the head of its trajectory: all must be frozen (deepFreeze of
  // `storedQuestion` froze them), else the frame is made each time.
  const { trajectory } = question;
  if (
    !Object.isFrozen(frame.units) || !Object.isFrozen(trajectory) ||
    !trajectory.slice(0, 2).every((m) => Object.isFrozen(m))
  ) {
    return frame;
  }
  Object.freeze(frame);
  if (frames === undefined) frozenQuestionFrames.set(question, [frame]);
  else frames.push(frame);
  return frame;
}

/** The public material a method may see. */
export type MethodInput = Pick<CorpusQuestion, "id" | "question" | "context" | "trajectory">;

/** The units of frozen questions (which cannot change), by question. */
const frozenQuestionUnits = new WeakMap<MethodInput, readonly GenericUnit[]>();

/** The question's evidence units in source order (a frozen question's built once, frozen). */
export function questionUnits(question: MethodInput): readonly GenericUnit[] {
  const known = frozenQuestionUnits.get(question);
  if (known !== undefined) return known;
  const units = sourceOrder(unitsFromArticles(question.context)).map((unit, position) => ({
    id: unit.id,
    position,
    text: renderUnit(unit),
  }));
  if (!Object.isFrozen(question) || !Object.isFrozen(question.context)) return units;
  for (const unit of units) Object.freeze(unit);
  frozenQuestionUnits.set(question, Object.freeze(units));
  return units;
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

/** The evidence space: tokens left for evidence when the input holds none. */
export function evidenceSpaceOf(counter: TokenCounter, question: MethodInput, limit: number): number {
  return limit - countPrompt(counter, compactedContext(question, [], ""));
}

/** Units with the given ids, in source order. */
export function unitsById(question: MethodInput, ids: readonly string[]): GenericUnit[] {
  const wanted = new Set(ids);
  return questionUnits(question).filter((u) => wanted.has(u.id));
}
