/**
 * `engines-aggregate`: every engine node's measured result gathered into `results.json`, and one summary line
 * per engine in `aggregate.json`. Its inputs are the transcript and every engine node's result.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { publishedJson } from "../../published.ts";
import type { MeasuredEngine } from "./engine.ts";

export type { MeasuredEngine } from "./engine.ts";

const ModelsSchema = z.object({
  mode: z.string(),
  chat_model: z.string(),
  decision_model: z.string(),
  note: z.string(),
});

/** The `engines-aggregate` stage. */
export const enginesAggregateStage = defineStage({
  name: "engines-aggregate",
  version: 1,
  doc: "Every engine's measured result (results.json) and one summary line per engine (aggregate.json).",
  params: z.object({
    /** Where the transcript came from (generator settings, or the format and file name; never a path). */
    description: z.string(),
    engines: z.array(z.string()),
    tokenizer: z.object({ name: z.string(), hash: z.string() }),
    models: ModelsSchema,
    budget_tokens: z.number().int(),
    repeats: z.number().int(),
  }),
  inputs: ["transcript", "engine:*"],
  outputs: {
    "results.json": { schema: z.string(), kind: "text", doc: "every engine's measured result" },
    "aggregate.json": { schema: z.string(), kind: "text", doc: "one summary line per engine" },
  },
  provider: false,
  run({ params, inputs }) {
    const transcript = z.object({ messages: z.array(z.unknown()), hash: z.string() }).loose().parse(
      inputs.transcript,
    );
    const engines = params.engines.map((spec) => {
      const value = inputs[`engine:${spec}`];
      if (value === undefined) throw new Error(`engines-aggregate: no input engine:${spec}`);
      return value as MeasuredEngine;
    });
    const results = {
      suite: "engines",
      transcript: {
        hash: transcript.hash,
        description: params.description,
        messages: transcript.messages.length,
      },
      tokenizer: params.tokenizer,
      models: params.models,
      budget_tokens: params.budget_tokens,
      repeats: params.repeats,
      engines,
    };
    const aggregate = {
      suite: "engines",
      transcript: { hash: transcript.hash, messages: transcript.messages.length },
      budget_tokens: params.budget_tokens,
      engines: engines.map((e) => ({
        engine: e.engine,
        status: e.status,
        input_tokens: e.input_tokens,
        output_tokens: e.output_tokens,
        savings_pct: e.savings_pct,
        within_budget: e.within_budget,
        tool_pairing_valid: e.tool_pairing_valid,
        needle_recall: e.needles.recall,
        qa_recall: e.qa?.recall ?? null,
        probe_recall: e.probes?.recall ?? null,
        latency_cold_ms: e.latency_ms.cold,
        latency_warm_median_ms: e.latency_ms.warm_median,
      })),
    };
    return Promise.resolve({
      outputs: { "results.json": publishedJson(results), "aggregate.json": publishedJson(aggregate) },
    });
  },
});
