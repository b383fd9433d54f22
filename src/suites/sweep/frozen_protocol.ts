/**
 * The sweep side of "frozen means frozen" (src/pipeline/frozen_check.ts): the options that enter a
 * `sweep-summary` or `sweep-rank` key, compared with a frozen run's recorded protocol before anything is
 * written, and the frozen compression nodes, which must not have failed.
 * @module
 */
import { assertFrozenProtocol, assertNoFailedCompression } from "../../pipeline/frozen_check.ts";
import type { FrozenRun } from "../../pipeline/frozen_run.ts";
import type { SweepRunOptions } from "./run_options.ts";
import { sweepRankStage } from "./stages/compress.ts";
import { sweepSummaryStage } from "./stages/compress.ts";

/** What this run would put into its compression keys. */
export interface SweepFrozenInputs {
  options: SweepRunOptions;
  models: { chat_model: string; decision_model: string };
  tokenizerHash: string;
  fixtureHash: string;
}

/** Refuses (exit 2, before anything is written) a sweep run that could not reuse the frozen run exactly. */
export function assertSweepFrozen(frozen: FrozenRun, ours: SweepFrozenInputs): void {
  const p = (frozen.manifest.protocol ?? {}) as Partial<SweepRunOptions> & {
    fixture?: string;
    models?: { chat_model?: string; decision_model?: string };
  };
  const o = ours.options;
  assertFrozenProtocol(frozen, [
    { option: "--trajectory (fixture sha256)", ours: ours.fixtureHash, frozen: p.fixture },
    { option: "--summary-allowance", ours: o.summaryAllowance, frozen: p.summaryAllowance },
    { option: "--reserve", ours: o.reserve, frozen: p.reserve },
    { option: "--compressions", ours: o.compressions, frozen: p.compressions },
    { option: "--tokenizer (hash)", ours: ours.tokenizerHash, frozen: frozen.manifest.tokenizer?.hash },
    { option: "chat model (--model)", ours: ours.models.chat_model, frozen: p.models?.chat_model },
    { option: "summary retries", ours: o.summaryRetries, frozen: p.summaryRetries },
    { option: "decision model", ours: ours.models.decision_model, frozen: p.models?.decision_model },
  ]);
  assertNoFailedCompression(
    frozen,
    (node) => node.stage === sweepSummaryStage.name || node.stage === sweepRankStage.name,
  );
}
