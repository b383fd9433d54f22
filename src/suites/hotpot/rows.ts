/**
 * One answer's row in the hotpot `results.json`.
 *
 * @module
 */
import type { HotpotMethod } from "./methods.ts";
import type { HotpotMetrics } from "./scoring.ts";

/** One answer's row in results.json. */
export interface HotpotResultRow {
  question_id: string;
  type: string;
  method: HotpotMethod;
  generation: number;
  answer_index: number;
  status: "ok" | "invalid";
  reason: string | null;
  answer_text: string | null;
  prediction: { answer?: string; sp?: readonly unknown[] } | null;
  metrics: HotpotMetrics;
  /** The provider's reported input tokens (null when no call was made). */
  input_tokens: number | null;
  /** Our exact count of the answer input. */
  context_tokens: number | null;
  within_cap: boolean | null;
  /** Share of gold supporting sentences present verbatim in the text the model reads (support_kept.ts). */
  sp_survival: number | null;
  /** Hash of the answer-input blob. */
  context_hash: string | null;
}
