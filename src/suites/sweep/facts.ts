/**
 * The strict fact checks: an answer passes a fact when it contains its exact text (whitespace runs folded).
 * @module
 */
import type { Fact } from "./case_format.ts";

/** The outcome of one fact check. */
export interface FactCheck {
  fact: Fact;
  passed: boolean;
}

function foldWhitespace(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** Checks every fact against `answer`: exact, case-sensitive substring after whitespace folding. */
export function checkFacts(answer: string, facts: readonly Fact[]): FactCheck[] {
  const folded = foldWhitespace(answer);
  return facts.map((fact) => ({ fact, passed: folded.includes(foldWhitespace(fact.text)) }));
}

/** The fact score of one answer: the share of facts passed (0 when there are no checks). */
export function factScore(checks: readonly FactCheck[]): number {
  if (checks.length === 0) return 0;
  return checks.filter((check) => check.passed).length / checks.length;
}
