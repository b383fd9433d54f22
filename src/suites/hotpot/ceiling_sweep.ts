/**
 * `hotpot run --input-cap 2400,3600,5400`: every compressed method at each ceiling in one run. The runs per
 * ceiling share the executor, so nodes that do not depend on the ceiling (questions, rankings; Full's
 * context bytes and so its answers) are executed once and memoised; summaries, contexts, answers and scores of
 * compressed methods are per ceiling (their keys hold the ceiling; their labels end in ` cap=N`). Rows of
 * compressed methods carry `input_cap`; Full's rows appear once, with `input_cap` null.
 *
 * @module
 */
import type { CheckOnlyReport } from "../answer_stage.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { Corpus } from "./corpus.ts";
import {
  type HotpotResultRow,
  type HotpotRunOptions,
  type HotpotRunOutcome,
  runHotpot,
} from "./run_suite.ts";

/** A result row of a ceiling sweep. */
export type CeilingRow = HotpotResultRow & { input_cap: number | null };

/** What a ceiling sweep returns: all rows, and per ceiling the rows (Full included) and compression usage. */
export interface CeilingSweepOutcome {
  rows: CeilingRow[];
  perCap: { cap: number; rows: HotpotResultRow[]; compressionUsage: HotpotRunOutcome["compressionUsage"] }[];
  checkOnly: HotpotRunOutcome["checkOnly"];
}

/** Runs the methods at every ceiling of `caps` (ascending, distinct) in one run. */
export async function runCeilingSweep(
  context: RunContext,
  corpus: Corpus,
  options: HotpotRunOptions,
  caps: readonly number[],
  models: ModelSetup,
  counter: TokenCounter,
): Promise<CeilingSweepOutcome> {
  const perCap: CeilingSweepOutcome["perCap"] = [];
  const checks: CheckOnlyReport[] = [];
  // One ceiling after the other: each already keeps the endpoint busy, and the memo serves the shared nodes.
  for (const cap of caps) {
    const outcome = await runHotpot(
      context,
      corpus,
      { ...options, inputCap: cap, labelTag: ` cap=${cap}` },
      models,
      counter,
    );
    perCap.push({ cap, rows: outcome.rows, compressionUsage: outcome.compressionUsage });
    if (outcome.checkOnly) checks.push(outcome.checkOnly);
  }
  const checkOnly: CheckOnlyReport | null = checks.length === 0 ? null : {
    compared: checks.reduce((n, c) => n + c.compared, 0),
    differing: [...new Set(checks.flatMap((c) => c.differing))],
    missing: [...new Set(checks.flatMap((c) => c.missing))],
  };
  const rows: CeilingRow[] = [
    ...(perCap[0]?.rows ?? []).filter((r) => r.method === "full").map((r) => ({ ...r, input_cap: null })),
    ...perCap.flatMap(({ cap, rows }) =>
      rows.filter((r) => r.method !== "full").map((r) => ({ ...r, input_cap: cap }))
    ),
  ];
  return { rows, perCap, checkOnly };
}
