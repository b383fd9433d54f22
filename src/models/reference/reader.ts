/**
 * What the extractive reader's heuristics share: their answer shape, the stemmed view of sentences, and
 * picking the number of a sentence that sits nearest to the words that matter.
 * @module
 */
import type { ContextSentence } from "./context.ts";
import { type Span, spansOf, tokensOf } from "./spans.ts";
import { contentWords, stem, STOP_WORDS } from "./text.ts";

/** An answer of one heuristic and the sentences it rests on (cited when they carry provenance). */
export interface ReaderAnswer {
  answer: string;
  facts: ContextSentence[];
}

/** The stems of a sentence's text (its title excluded). */
export function sentenceStems(sentence: ContextSentence): Set<string> {
  return new Set(
    tokensOf(sentence.text).map((token) => token.toLowerCase()).filter((word) =>
      word !== "" && !STOP_WORDS.has(word)
    )
      .map(stem),
  );
}

/** The number span of `text` accepted and nearest (in tokens) to a `focus` stem; ties and no focus: the first. */
export function nearestNumber(
  text: string,
  focus: ReadonlySet<string>,
  accept: (span: Span) => boolean = () => true,
): Span | undefined {
  const numbers = spansOf(text).filter((span) => span.numeric && accept(span));
  if (numbers.length === 0) return undefined;
  const anchors = tokensOf(text).flatMap((token, index) => (focus.has(stem(token)) ? [index] : []));
  if (anchors.length === 0) return numbers[0];
  const distance = (span: Span) => Math.min(...anchors.map((anchor) => Math.abs(anchor - span.position)));
  return numbers.reduce((best, span) => (distance(span) < distance(best) ? span : best));
}

const NOT_NOUNS = new Set("is are was were do does did has have had can could will would".split(" "));

/** The noun right after "which"/"what" ("company" in "Which company was…"), lowercase, if any. */
export function typeNoun(question: string): string | undefined {
  const match = /\b(?:which|what)\s+(\p{L}+)/iu.exec(question);
  if (match === null) return undefined;
  const noun = match[1].toLowerCase();
  return NOT_NOUNS.has(noun) || contentWords(noun).length === 0 ? undefined : noun;
}
