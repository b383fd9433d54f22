/**
 * The hotpot side of "frozen means frozen" (src/pipeline/frozen_check.ts): the options that enter a compression
 * key, compared with a frozen run's protocol before anything is written.
 *
 * @module
 */
import { assertFrozenProtocol, assertNoFailedCompression } from "../../../pipeline/frozen_check.ts";
import type { FrozenRun } from "../../../pipeline/frozen_run.ts";
import { hotpotMethods, type HotpotRunOptions } from "./run_suite.ts";
import { someNeeds } from "../../../methods/registry.ts";
import { hotpotRankStage } from "./stages/compress.ts";
import { hotpotSummaryStage } from "./stages/compress.ts";

/** What this run would put into its compression keys. */
export interface HotpotFrozenInputs {
  options: HotpotRunOptions;
  models: { chat_model: string; decision_model: string };
  tokenizerHash: string;
  corpusHash: string;
}

/** The `--input-cap` row: equal when every ceiling of ours is a ceiling of the frozen run. */
function frozenCeilings(o: HotpotRunOptions, p: Partial<HotpotRunOptions>) {
  const ours = o.inputCaps ?? [o.inputCap];
  const frozen = p.inputCaps ?? (p.inputCap === undefined ? [] : [p.inputCap]);
  const covered = ours.every((cap) => frozen.includes(cap));
  return { option: "--input-cap", ours: ours.join(","), frozen: covered ? ours.join(",") : frozen.join(",") };
}

/** Refuses (exit 2, before anything is written) a hotpot run that could not reuse the frozen run exactly. */
export function assertHotpotFrozen(frozen: FrozenRun, ours: HotpotFrozenInputs): void {
  const p = (frozen.manifest.protocol ?? {}) as Partial<HotpotRunOptions> & {
    models?: { chat_model?: string; decision_model?: string };
  };
  const o = ours.options;
  const frozenMethods = p.methods ?? [];
  const methods = hotpotMethods(o);
  // A method that compresses, which the frozen run did not measure (or measured with another engine spec).
  const frozenSpec = (name: string) => p.engines?.find((e) => e.name === name)?.spec;
  const missing = methods.filter((m) =>
    m.kind === "engine"
      ? frozenMethods.includes(m.name) && frozenSpec(m.name) !== m.spec
      : m.needs.length > 0 && !frozenMethods.includes(m.name)
  );
  const usesRanking = someNeeds(methods, "ranking");
  const usesSummary = someNeeds(methods, "summary");
  assertFrozenProtocol(frozen, [
    { option: "--corpus (sha256)", ours: ours.corpusHash, frozen: frozen.manifest.sources["corpus"] },
    // Only methods whose compression the frozen run did not make matter (full needs none).
    ...(missing.length > 0
      ? [{ option: "--methods", ours: o.methods.join(","), frozen: frozenMethods.join(",") }]
      : []),
    // A run may reuse a frozen run at any of the frozen run's ceilings (a sweep froze every one of them).
    frozenCeilings(o, p),
    { option: "--reserve", ours: o.reserve, frozen: p.reserve },
    { option: "--compressions", ours: o.compressions, frozen: p.compressions },
    { option: "--tokenizer (hash)", ours: ours.tokenizerHash, frozen: frozen.manifest.tokenizer?.hash },
    ...(usesSummary
      ? [
        { option: "chat model (--model)", ours: ours.models.chat_model, frozen: p.models?.chat_model },
        { option: "summary retries", ours: o.summaryRetries, frozen: p.summaryRetries },
      ]
      : []),
    ...(methods.some((m) => m.kind === "units" && Object.hasOwn(m.params, "fusion_share"))
      ? [{ option: "fusion share", ours: o.fusionShare, frozen: p.fusionShare }]
      : []),
    ...(usesRanking
      ? [{ option: "decision model", ours: ours.models.decision_model, frozen: p.models?.decision_model }]
      : []),
  ]);
  assertNoFailedCompression(frozen, (node) => {
    if (node.stage === hotpotRankStage.name) return usesRanking;
    if (node.stage !== hotpotSummaryStage.name) return false;
    return o.methods.includes((node.params as { method?: string }).method ?? "");
  });
}
