/**
 * One answer's row in the sweep `results.json`.
 * @module
 */

/** One answer's row in results.json. */
export interface SweepResultRow {
  kind: string;
  generation: number;
  answer_index: number;
  status: "ok" | "invalid";
  reason: string | null;
  context_tokens: number | null;
  within_cap: boolean | null;
  input_tokens: number | null;
  fact_score: number;
  facts: { name: string; passed: boolean }[];
  repair_all_passed: boolean;
  repair: { name: string; passed: boolean; detail: string }[];
  answer_text: string | null;
}
