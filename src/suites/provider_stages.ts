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
import { ANSWER_STAGE_VERSION, AnswerStatusSchema, StoredAnswerSchema } from "./answer_stage.ts";
import { StoredRankingSchema, StoredSummarySchema } from "./stored.ts";

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

const ranking = {
  ranking: { schema: StoredRankingSchema.nullable(), doc: "unit ids by descending probability" },
};
const summary = {
  summary: { schema: StoredSummarySchema.nullable(), doc: "the summary (and fusion's kept units)" },
};
const answer = {
  answer: { schema: StoredAnswerSchema.nullable(), doc: "the model's answer and the provider's usage" },
  status: { schema: AnswerStatusSchema.nullable(), doc: "valid or not, why, and the node's key and params" },
};
const loose = z.record(z.string(), z.unknown());

/** The provider (and timed) stages of every suite. */
export const PROVIDER_STAGES: readonly AnyStageDef[] = [
  providerStage(
    "hotpot-collect",
    2,
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
  providerStage(
    "hotpot-rank",
    2,
    "The decision model's ranking of one question's units.",
    loose,
    ["question"],
    ranking,
  ),
  providerStage(
    "hotpot-summary",
    2,
    "The chat model's summary of one question's evidence (fusion: of what the ranking did not keep).",
    loose,
    ["question", "ranking"],
    summary,
  ),
  providerStage(
    "hotpot-answer",
    ANSWER_STAGE_VERSION,
    "One answer of the chat model.",
    loose,
    ["context"],
    answer,
    false,
  ),
  providerStage("sweep-summary", 2, "One generation's summary S of all evidence.", loose, ["units"], summary),
  providerStage(
    "sweep-rank",
    2,
    "One generation's ranking of the evidence units.",
    loose,
    ["units"],
    ranking,
  ),
  providerStage(
    "sweep-answer",
    ANSWER_STAGE_VERSION,
    "One answer to the follow-up.",
    loose,
    ["context"],
    answer,
    false,
  ),
  providerStage(
    "engines-engine",
    1,
    "One engine's cold and warm compress calls (timed), validation, measures and QA.",
    loose,
    ["transcript"],
    {
      result: { schema: loose, doc: "the measured result" },
      window: { schema: z.array(loose).nullable(), doc: "the cold output window" },
    },
    false,
  ),
];

/** The provider stage named `name` (throws for an unknown name: a programming error). */
export function providerStageNamed(name: string): AnyStageDef {
  const stage = PROVIDER_STAGES.find((s) => s.name === name);
  if (!stage) throw new Error(`no provider stage ${name}`);
  return stage;
}
