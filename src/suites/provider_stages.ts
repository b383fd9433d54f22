/**
 * The stages that call a provider, read outside the store or measure time (collections, rankings, summaries,
 * answers, engines). `verify --rederive` does not re-execute them; their outputs are what the provider-free
 * stages are re-derived from.
 *
 * @module
 */
import type { AnyStageDef } from "../pipeline/stage.ts";
import { hotpotAnswerStage, sweepAnswerStage } from "./answer_stage.ts";
import { hotpotCollectStage } from "./hotpot/stages/collect.ts";
import { hotpotRankStage, hotpotSummaryStage } from "./hotpot/stages/compress.ts";
import { sweepRankStage, sweepSummaryStage } from "./sweep/stages/compress.ts";
import { enginesEngineStage } from "./engines/stages/engine.ts";

/** The provider (and timed) stages of every suite. */
export const PROVIDER_STAGES: readonly AnyStageDef[] = [
  hotpotCollectStage,
  hotpotRankStage,
  hotpotSummaryStage,
  hotpotAnswerStage,
  sweepSummaryStage,
  sweepRankStage,
  sweepAnswerStage,
  enginesEngineStage,
] as AnyStageDef[];

/** The provider stage named `name` (throws for an unknown name: a programming error). */
export function providerStageNamed(name: string): AnyStageDef {
  const stage = PROVIDER_STAGES.find((s) => s.name === name);
  if (!stage) throw new Error(`no provider stage ${name}`);
  return stage;
}
