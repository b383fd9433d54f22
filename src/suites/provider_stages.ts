/**
 * The stages that call a provider, read outside the store or measure time (collections, rankings, summaries,
 * answers, engines). `verify --rederive` does not re-execute them; their outputs are what the provider-free
 * stages are re-derived from. The collection's body runs inside the hotpot collect suite (it drives agents and
 * workspaces); the others are full declarations with their bodies.
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
): AnyStageDef {
  return defineStage({
    name,
    version,
    doc,
    params,
    inputs,
    outputs,
    provider: true,
    run: () => Promise.reject(new Error(`${name} runs inside its suite (it drives agents and workspaces)`)),
  });
}

const loose = z.record(z.string(), z.unknown());

/** The provider (and timed) stages of every suite. */
export const PROVIDER_STAGES: readonly AnyStageDef[] = [
  providerStage(
    "hotpot-collect",
    4,
    "One question's trajectory: scripted read_file calls over a real workspace, a live agent loop, an imported " +
      "Hermes session (its raw file, the run source session:<id>, is the input `session`), or an outside agent.",
    loose,
    ["dataset", "session"],
    {
      collection: {
        schema: loose.nullable(),
        doc: "the collected messages and the agent's initial system prompt (text, sha256)",
      },
      check: {
        schema: loose,
        doc: "the collection checks' verdict and whether files unchanged was verifiable",
      },
      session_text: { schema: z.string().nullable(), doc: "an outside agent's raw stdout (agent mode only)" },
    },
  ),
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
