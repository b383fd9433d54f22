/**
 * The protocol knobs of `sweep run` and their defaults: a leaf the run, its report and its stats all read
 * (so the report and stats files need not import the run).
 * @module
 */
import type { EngineOption } from "../method_selection.ts";

/** The protocol knobs of a sweep run. */
export interface SweepRunOptions {
  compressions: number;
  topN: number[];
  /** The ceiling; in a ceiling sweep, the primary (first given) one. */
  inputCap: number;
  /** A ceiling sweep's ceilings, as given (absent: one ceiling, `inputCap`). */
  inputCaps?: number[];
  summaryAllowance: number;
  reserve: number;
  answers: number;
  summaryRetries: number;
  answerMaxTokens: number;
  /** Methods after full, S and S+TopN (`--method`): declared methods and engines (absent: none). */
  methods?: string[];
  /** The engine methods among `methods` (absent: none). */
  engines?: EngineOption[];
}

/** Defaults from the protocol. */
export const DEFAULT_SWEEP_RUN: SweepRunOptions = {
  compressions: 5,
  topN: [1, 2, 3, 4, 5],
  inputCap: 3800,
  summaryAllowance: 3200,
  reserve: 64,
  answers: 3,
  summaryRetries: 3,
  answerMaxTokens: 1536,
};
