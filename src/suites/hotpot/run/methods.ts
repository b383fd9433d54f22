/**
 * The hotpot frame of the declared methods (src/methods/registry.ts): one question's public material as evidence
 * units (each article's sentences in lossless, id-stable groups of up to {@link GROUP_SIZE}, in the read_file line
 * format) and the one answer input every method shares under `limit = input cap − reserve` (system prompt and
 * task, the evidence, then the evaluation question, which the reference model recognises by `"supporting_facts"`).
 *
 * @module
 */
import { type EvidenceUnit as GenericUnit, joinUnits } from "../../../methods/evidence_unit.ts";
import { DEFAULT_UNIT_METHODS, type EvidenceFrame } from "../../../methods/registry.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
import type { CorpusQuestion } from "../corpus.ts";
import type { Article, HotpotRecord } from "../../../data/hotpot_record.ts";
import { formatNumberedLine, lineNumberFromSentenceId } from "../read_file.ts";
import { uniqueSlugs } from "../workspace.ts";

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
  const units = questionUnits(question);
  const render = (kept: readonly GenericUnit[], summary: string) => compactedContext(question, kept, summary);
  // The render reads the question's text and the head of its trajectory: all must be frozen (deepFreeze of
  // `storedQuestion` froze them), else the frame is made each time (and its prompts counted whole).
  const { trajectory } = question;
  if (
    !Object.isFrozen(units) || !Object.isFrozen(trajectory) ||
    !trajectory.slice(0, 2).every((m) => Object.isFrozen(m))
  ) {
    return { counter, units, render, limit };
  }
  const frame: EvidenceFrame = Object.freeze({
    counter,
    units,
    render,
    count: compactedTokens(counter, question, units),
    limit,
  });
  if (frames === undefined) frozenQuestionFrames.set(question, [frame]);
  else frames.push(frame);
  return frame;
}

/** A unit's text standing for the kept units in a render: not whitespace, and found once in it. */
const MARK = "\uE000";

const STARTS_NON_SPACE = /^\P{White_Space}/u;

/**
 * The exact count of {@link compactedContext}'s prompt without counting it whole. Its render is the text
 * before the kept units, each unit then `\n\n` (the last `\n`), and the text after (checked on every
 * render): each join is a line break before non-whitespace, where a counter with `additiveAtLineBreaks` cuts
 * a text and adds up its parts' counts. So the count is the sum of the parts' counts, each part counted once
 * (by its text). Without units, or with a render not so laid out, the prompt is counted whole. A count
 * asked again (the fits' common first steps, a summary's input counted by its stage and its contexts) is the
 * one made before: kept by summary and the kept units' positions among the question's frozen `units`.
 */
function compactedTokens(
  counter: TokenCounter,
  question: MethodInput,
  units: readonly GenericUnit[],
): (kept: readonly GenericUnit[], summary: string) => number {
  const count = compactedCount(counter, question);
  const counts = new Map<string, Map<string, number>>();
  return (kept, summary) => {
    let key = "";
    for (const unit of kept) {
      if (units[unit.position] !== unit) return count(kept, summary); // not one of the frozen units
      key += `${unit.position},`;
    }
    let known = counts.get(summary);
    if (known === undefined) counts.set(summary, known = new Map());
    let tokens = known.get(key);
    if (tokens === undefined) {
      tokens = count(kept, summary);
      known.set(key, tokens);
    }
    return tokens;
  };
}

/** {@link compactedTokens} without keeping the counts made. */
function compactedCount(
  counter: TokenCounter,
  question: MethodInput,
): (kept: readonly GenericUnit[], summary: string) => number {
  const render = counter.render?.bind(counter);
  // The counts are kept by compactedTokens, so a prompt is counted from its render, without a key of its text.
  const whole = render === undefined
    ? (kept: readonly GenericUnit[], summary: string) =>
      countPrompt(counter, compactedContext(question, kept, summary))
    : (kept: readonly GenericUnit[], summary: string) =>
      counter.countText(render(compactedContext(question, kept, summary)));
  if (counter.additiveAtLineBreaks !== true || render === undefined) return whole;
  // By summary: the render before and after the units, their counts summed; null: not laid out as above.
  const around = new Map<string, { before: string; after: string; tokens: number } | null>();
  const aroundOf = (summary: string) => {
    let known = around.get(summary);
    if (known === undefined) {
      const text = render(compactedContext(question, [{ id: MARK, position: 0, text: MARK }], summary));
      const at = text.indexOf(MARK);
      const before = text.slice(0, at);
      const after = text.slice(at + MARK.length + 1);
      const laidOut = at > 0 && text.indexOf(MARK, at + 1) < 0 && text[at + MARK.length] === "\n" &&
        /[\r\n]$/.test(before) && STARTS_NON_SPACE.test(after);
      known = laidOut
        ? { before, after, tokens: counter.countText(before) + counter.countText(after) }
        : null;
      around.set(summary, known);
    }
    return known;
  };
  // By a unit's text, followed by `\n\n` ([0]) or, the last unit, by `\n` ([1]): the count of the two (each
  // counted when first needed); null for a text that starts with whitespace.
  const unitTokens = [new Map<string, number | null>(), new Map<string, number | null>()];
  const unitTokensOf = (text: string, joint: string) => {
    const known = unitTokens[2 - joint.length];
    let tokens = known.get(text);
    if (tokens === undefined) {
      tokens = STARTS_NON_SPACE.test(text) ? counter.countText(text + joint) : null;
      known.set(text, tokens);
    }
    return tokens;
  };
  return (kept, summary) => {
    const parts = kept.length > 0 ? aroundOf(summary) : null;
    if (parts === null) return whole(kept, summary);
    // The units joined by concatenation: the render is flattened once, by the check below, and not copied else.
    let joined = kept[0].text;
    for (let i = 1; i < kept.length; i++) joined += "\n\n" + kept[i].text;
    const text = render(answerInput(question, joined, summary));
    let tokens = parts.tokens;
    for (let i = 0; i < kept.length; i++) {
      const counted = unitTokensOf(kept[i].text, i + 1 < kept.length ? "\n\n" : "\n");
      if (counted === null) return counter.countText(text);
      tokens += counted;
    }
    // The render is `before`, the units each followed by `\n\n` (the last by `\n`), then `after`: each part
    // compared where it lies (a slice of the flat render is compared to a flat text as one block).
    const { before, after } = parts;
    let at = before.length;
    let laidOut = text.length === at + joined.length + 1 + after.length &&
      text.slice(0, at) === before;
    for (let i = 0; laidOut && i < kept.length; i++) {
      const unit = kept[i].text;
      laidOut = text.slice(at, at + unit.length) === unit && text.charCodeAt(at + unit.length) === 10 &&
        (i + 1 === kept.length || text.charCodeAt(at + unit.length + 1) === 10);
      at += unit.length + 2;
    }
    laidOut &&= text.slice(at - 1) === after;
    return laidOut ? tokens : counter.countText(text);
  };
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
  return answerInput(question, joinUnits(kept), summary);
}

/** {@link compactedContext} of the kept units' joined text. */
function answerInput(question: MethodInput, joined: string, summary: string): ChatMessage[] {
  return compactedAnswerInput(question.trajectory, compactedEvidence(joined, summary), question.question);
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

/** Sentences per group (the last group of an article may be shorter). */
export const GROUP_SIZE = 3;

/** One evidence unit: consecutive sentences of one article. */
export interface EvidenceUnit {
  /** `${titleSlug}#${firstSid}-${lastSid}`. */
  id: string;
  title: string;
  /** Index of the article in the record's context. */
  article_index: number;
  /** 0-based sentence ids, consecutive. */
  sentence_ids: number[];
  sentences: string[];
}

/** Groups articles' sentences into evidence units, in source order. */
export function unitsFromArticles(articles: readonly Article[], groupSize = GROUP_SIZE): EvidenceUnit[] {
  const slugs = uniqueSlugs(articles.map((a) => a.title));
  const units: EvidenceUnit[] = [];
  articles.forEach((article, articleIndex) => {
    for (let start = 0; start < article.sentences.length; start += groupSize) {
      const sentences = article.sentences.slice(start, start + groupSize);
      const ids = sentences.map((_, i) => start + i);
      units.push({
        id: `${slugs[articleIndex]}#${ids[0]}-${ids[ids.length - 1]}`,
        title: article.title,
        article_index: articleIndex,
        sentence_ids: ids,
        sentences,
      });
    }
  });
  return units;
}

/** The evidence units of a record's context (only the articles are used: no answer, no labels). */
export function unitsFromRecord(record: HotpotRecord, groupSize = GROUP_SIZE): EvidenceUnit[] {
  return unitsFromArticles(record.context, groupSize);
}

/** A unit as text: a `## title` header, then its sentences as `N|text` lines (N = sentence id + 1). */
export function renderUnit(unit: EvidenceUnit): string {
  const lines = unit.sentences.map((s, i) =>
    formatNumberedLine(lineNumberFromSentenceId(unit.sentence_ids[i]), s)
  );
  return [`## ${unit.title}`, ...lines].join("\n");
}

/** Units in source order (article, then first sentence id), whatever order they are given in. */
export function sourceOrder(units: readonly EvidenceUnit[]): EvidenceUnit[] {
  return [...units].sort((a, b) =>
    a.article_index - b.article_index || a.sentence_ids[0] - b.sentence_ids[0]
  );
}

/** The final user message: the evaluation question and the answer format. */
export function evaluationQuestion(question: string): string {
  return `Answer the question using only the evidence above.\nQuestion: ${question}\n\n` +
    `Reply with one JSON object and nothing else: {"answer": "<a short answer: a name, a number, yes or no>", ` +
    `"supporting_facts": [["<article title>", <sentence id>], ...]}. A file's line N is sentence id N-1 of the ` +
    `article; cite every sentence your answer relies on.`;
}

/** The head of the history every method keeps: the original system prompt and task (the first two messages). */
function historyHead(trajectory: readonly ChatMessage[]): ChatMessage[] {
  const [system, task] = trajectory;
  if (system?.role !== "system" || task?.role !== "user") {
    throw new Error("a trajectory starts with the system prompt and the user task");
  }
  return [system, task];
}

/** The `full` answer input: the whole public history, then the evaluation question. */
export function fullAnswerInput(trajectory: readonly ChatMessage[], question: string): ChatMessage[] {
  return [...trajectory, { role: "user", content: evaluationQuestion(question) }];
}

/** The compacted evidence block: kept excerpts (source order) and a summary, each optional. */
export function compactedEvidence(kept: string, summary: string): string {
  // Concatenated, not joined: a join copies the texts, a concatenation is flattened only where it is read.
  const excerpts = kept &&
    `Excerpts kept verbatim from the files you read:\n<excerpts>\n${kept}\n</excerpts>`;
  const summarized = summary && `Summary of the other evidence you read:\n<summary>\n${summary}\n</summary>`;
  if (excerpts && summarized) return `${excerpts}\n\n${summarized}`;
  return excerpts || summarized || "(No evidence was kept.)";
}

/** A compacted answer input: the head, the framed compacted evidence, then the evaluation question. */
export function compactedAnswerInput(
  trajectory: readonly ChatMessage[],
  evidence: string,
  question: string,
): ChatMessage[] {
  return [
    ...historyHead(trajectory),
    { role: "user", content: `Your earlier file reads were compacted to fit the context.\n\n${evidence}` },
    { role: "user", content: evaluationQuestion(question) },
  ];
}
