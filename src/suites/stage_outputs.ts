/**
 * The output names every stage declares, by stage name: what `verify` needs to name an undeclared output,
 * without loading the ~300 modules the stage declarations import. tests/stage_outputs.test.ts holds it equal
 * to the declarations.
 * @module
 */

/** Each stage's declared output names, as its declaration lists them. */
export const STAGE_OUTPUTS: Readonly<Record<string, readonly string[]>> = {
  "engines-aggregate": ["results.json", "aggregate.json"],
  "engines-engine": ["result", "window"],
  "engines-report": ["stats.json", "REPORT.md", "report.html"],
  "engines-transcript": ["transcript"],
  "hotpot-aggregate": ["results.json", "aggregate.json"],
  "hotpot-answer": ["answer", "status"],
  "hotpot-ceilings": ["results.json", "aggregate.json"],
  "hotpot-collect": ["collection", "check", "session_text"],
  "hotpot-context": ["messages", "info"],
  "hotpot-corpus": ["corpus.json", "selection.json"],
  "hotpot-corpus-head": ["head"],
  "hotpot-engine": ["window"],
  "hotpot-question": ["question", "gold", "meta", "card"],
  "hotpot-rank": ["ranking"],
  "hotpot-report": ["stats.json", "REPORT.md", "report.html"],
  "hotpot-rows": ["rows"],
  "hotpot-score": ["score"],
  "hotpot-select": ["selected", "report"],
  "hotpot-summary": ["summary"],
  "published-json": ["file"],
  "run-header": ["header"],
  "sweep-aggregate": ["results.json", "aggregate.json"],
  "sweep-answer": ["answer", "status"],
  "sweep-ceilings": ["results.json", "aggregate.json"],
  "sweep-context": ["messages", "info"],
  "sweep-engine": ["window"],
  "sweep-rank": ["ranking"],
  "sweep-report": ["stats.json", "REPORT.md", "report.html"],
  "sweep-score": ["score"],
  "sweep-summary": ["summary"],
  "sweep-trajectory": ["units"],
};

/**
 * The outputs the stage `name` declares (undefined for a stage this program does not know): for `verify`.
 *
 * @example
 * ```ts
 * import { declaredOutputs } from "./stage_outputs.ts";
 * declaredOutputs("hotpot-rank"); // ["ranking"]
 * ```
 */
export function declaredOutputs(name: string): readonly string[] | undefined {
  return Object.hasOwn(STAGE_OUTPUTS, name) ? STAGE_OUTPUTS[name] : undefined;
}
