/**
 * Bridge (two-hop) questions for the reference model's extractive reader (rule (b)): "In which city was the
 * founder of X born?". Hop 1 ranks X's sentences by BM25 of the relation words; one holding them all answers
 * with its typed span, else a new name in it is the bridge, whose sentences hop 2 ranks by the rest.
 * @module
 */
import { bm25Scores } from "./bm25.ts";
import type { ContextSentence } from "./context.ts";
import { nearestNumber, type ReaderAnswer, typeNoun } from "./reader.ts";
import { isFresh, isYear, questionEntities, sentencesAbout, type Span, spansOf } from "./spans.ts";
import { stem, stemmedWords, words } from "./text.ts";

/** What kind of span answers a question (`noun`: "city" in "In which city…", or "year"). */
interface AnswerType {
  kind: "year" | "number" | "name";
  noun?: string;
}

/** Question words that never relate E to anything. */
const FILLER_WORDS: ReadonlySet<string> = new Set(
  ["many", "much", "name", "named", "called", "kind", "type"].map(stem),
);

const HOP1_TRIES = 3;

/** Weight of the type noun's BM25 score next to the relation words'. */
const TYPE_NOUN_WEIGHT = 0.25;

/** The answer type of `question`: a year, a number, or a name typed by the noun after "which/what". */
export function answerType(question: string): AnswerType {
  if (/\b(?:what|which)\s+year\b/i.test(question) || /^\s*when\b/i.test(question)) {
    return { kind: "year", noun: "year" };
  }
  if (/\bhow\s+(?:many|much|long|old|tall|high|far|large|big|deep|wide)\b/i.test(question)) {
    return { kind: "number" };
  }
  const noun = typeNoun(question);
  return noun === undefined ? { kind: "name" } : { kind: "name", noun };
}

/**
 * The span of `sentence` of type `type`, leaving out spans whose content words all are in `known`; `focus` =
 * stems a number should sit near; `titles` = lowercase context titles.
 */
function typedAnswer(
  sentence: string,
  type: AnswerType,
  known: ReadonlySet<string>,
  focus: ReadonlySet<string>,
  titles: ReadonlySet<string>,
): string | undefined {
  if (type.kind !== "name") {
    return nearestNumber(
      sentence,
      focus,
      (span) => !known.has(span.text.toLowerCase()) && (type.kind !== "year" || isYear(span.text)),
    )?.text;
  }
  const noun = type.noun === undefined ? undefined : stem(type.noun);
  const untyped = (span: Span) =>
    Number(noun === undefined || !words(span.text).some((word) => stem(word) === noun));
  const order = byTitleThenPosition(titles);
  return spansOf(sentence).filter((span) => !span.numeric && isFresh(span, known))
    .sort((x, y) => untyped(x) - untyped(y) || order(x, y))[0]?.text;
}

/** Orders spans: named by a context title (`titles`, lowercase) first, then not opening the sentence, then in order. */
function byTitleThenPosition(titles: ReadonlySet<string>): (x: Span, y: Span) => number {
  const untitled = (span: Span) => Number(!titles.has(span.text.toLowerCase()));
  return (x, y) =>
    untitled(x) - untitled(y) || Number(x.initial) - Number(y.initial) || x.position - y.position;
}

/** Relevance of every candidate to `terms`, plus the weighted type noun. */
function relevance(candidates: readonly ContextSentence[], terms: string[], noun?: string): number[] {
  const texts = candidates.map((sentence) => sentence.text);
  const main = bm25Scores(terms.join(" "), texts, stemmedWords);
  if (noun === undefined) return main;
  const typed = bm25Scores(noun, texts, stemmedWords);
  return main.map((score, index) => score + TYPE_NOUN_WEIGHT * typed[index]);
}

/** Indexes of `subset` members in `candidates`, by descending score, ties by source order. */
function ranked(
  candidates: readonly ContextSentence[],
  subset: readonly ContextSentence[],
  scores: number[],
) {
  const wanted = new Set(subset);
  return candidates.flatMap((sentence, index) => (wanted.has(sentence) ? [index] : []))
    .sort((a, b) => scores[b] - scores[a] || a - b);
}

/** The answer to a bridge (or one-hop) question from `candidates`, or undefined. */
export function answerBridge(
  question: string,
  candidates: readonly ContextSentence[],
): ReaderAnswer | undefined {
  const type = answerType(question);
  const entities = questionEntities(question);
  if (entities.length === 0) return undefined;
  const asked = new Set(words(question));
  const entityStems = new Set(entities.flatMap(stemmedWords));
  const nounStem = type.noun === undefined ? undefined : stem(type.noun);
  const relation = [...new Set(stemmedWords(question))].filter((term) =>
    !entityStems.has(term) && term !== nounStem && !FILLER_WORDS.has(term)
  );
  const titles = new Set(
    candidates.flatMap((sentence) => (sentence.title === undefined ? [] : [sentence.title.toLowerCase()])),
  );
  const hop1Scores = relevance(candidates, relation, type.noun);
  const about = new Set(entities.flatMap((name) => sentencesAbout(candidates, name)));
  const hop1Order = ranked(candidates, candidates.filter((sentence) => about.has(sentence)), hop1Scores)
    .filter((index) => relation.length === 0 || hop1Scores[index] > 0)
    .slice(0, HOP1_TRIES);
  for (const hop1Index of hop1Order) {
    const hop1 = candidates[hop1Index];
    const covered = new Set(stemmedWords(`${hop1.title ?? ""} ${hop1.text}`)); // its title's words too
    const remaining = relation.filter((term) => !covered.has(term));
    if (remaining.length === 0) {
      const answer = typedAnswer(hop1.text, type, asked, new Set(relation), titles);
      if (answer !== undefined) return { answer, facts: [hop1] };
      continue;
    }
    const bridges = spansOf(hop1.text)
      .filter((span) => !span.numeric && isFresh(span, asked))
      .sort(byTitleThenPosition(titles));
    const hop2Scores = relevance(candidates, remaining, type.noun);
    for (const bridge of bridges) {
      const known = new Set([...asked, ...words(bridge.text)]);
      const about = sentencesAbout(candidates, bridge.text).filter((sentence) => sentence !== hop1);
      for (const hop2Index of ranked(candidates, about, hop2Scores)) {
        const hop2 = candidates[hop2Index];
        const answer = typedAnswer(hop2.text, type, known, new Set(remaining), titles);
        if (answer !== undefined) return { answer, facts: [hop1, hop2] };
      }
    }
  }
  return undefined;
}
