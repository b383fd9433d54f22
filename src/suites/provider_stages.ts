/**
 * Declarations of the stages that call a provider or measure time (rankings, summaries, answers, live or
 * file-system collections, engines). Their bodies run inside the suites, which hold the models; the
 * declarations name their params, inputs and outputs for the stage catalogue, and tell `verify --rederive`
 * not to re-execute them.
 *
 * @module
 */
import { z } from "zod";
import { type AnyStageDef, defineStage, type OutputSpecs } from "../pipeline/stage.ts";
import { hotpotAnswerStage, sweepAnswerStage } from "./answer_stage.ts";
import { hotpotRankStage, hotpotSummaryStage } from "./hotpot/stages/compress.ts";
import { sweepRankStage, sweepSummaryStage } from "./sweep/stages/compress.ts";
import { enginesEngineStage } from "./engines/stages/engine.ts";

function providerStage(
  name: string,
  version: number,
  doc: string,
  params: z.ZodType,
  inputs: string[],
  outputs: OutputSpecs,
  reuseFrozen = true,
): AnyStageDef {
  return defineStage({
    name,
    version,
    doc,
    params,
    inputs,
    outputs,
    provider: true,
    reuseFrozen,
    run: () =>
      Promise.reject(new Error(`${name} runs inside its suite (it calls a provider or measures time)`)),
  });
}

const loose = z.record(z.string(), z.unknown());

/** The provider (and timed) stages of every suite. */
export const PROVIDER_STAGES: readonly AnyStageDef[] = [
  providerStage(
    "hotpot-collect",
    1,
    "One question's trajectory: scripted read_file calls over a real workspace, a live agent loop, or an imported Hermes session.",
    loose,
    ["dataset"],
    {
      collection: { schema: loose.nullable(), doc: "the collected messages" },
      check: { schema: loose, doc: "the collection checks' verdict" },
    },
  ),
  hotpotRankStage,
  hotpotSummaryStage,
  hotpotAnswerStage,
  sweepSummaryStage,
  sweepRankStage,
  sweepAnswerStage,
  enginesEngineStage,
];

/** The provider stage named `name` (throws for an unknown name: a programming error). */
export function providerStageNamed(name: string): AnyStageDef {
  const stage = PROVIDER_STAGES.find((s) => s.name === name);
  if (!stage) throw new Error(`no provider stage ${name}`);
  return stage;
}
