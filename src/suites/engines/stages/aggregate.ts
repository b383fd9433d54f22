/**
 * `engines-aggregate`: every engine node's measured result gathered into `results.json` (one row per engine
 * and budget, budgets in order, with each needle's position), and one summary line per engine and budget in
 * `aggregate.json`. Its inputs are the transcript and every engine node's result (`engine:<budget>:<name>`).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { publishedJson } from "../../published.ts";
import type { MeasuredEngine } from "./engine.ts";
import {
  type AnsweringModels,
  AnsweringModelsSchema,
  mergeAnsweringModels,
} from "../../../core/answering_models.ts";

/** The aggregate node's input key of one engine's result at one budget. */
export function engineInputKey(name: string, budget: string): string {
  return `engine:${budget}:${name}`;
}

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
  // 4: the models that answered each engine's calls (`models` per row) and the run's (`answering_models`).
  // 5: context lengths (`context_lengths`; per row `context_length`), the engine's own compress time beside the
  // round trip, start-up and timing per row of aggregate.json.
  version: 5,
  doc: "Every engine's measured result at every budget (results.json) and one summary line per engine and " +
    "budget (aggregate.json).",
  params: z.object({
    /** Where the transcript came from (generator settings, or the format and file name; never a path). */
    description: z.string(),
    /** Engine names, in order. */
    engines: z.array(z.string()),
    /** Budgets, in order: as asked for and in tokens. */
    budgets: z.array(z.object({ budget: z.string(), budget_tokens: z.number().int() })).min(1),
    /** The host context lengths measured (`--context-length`), in order, when any. */
    context_lengths: z.array(z.number().int()).optional(),
    /** The base name of a `--probes` file, when one was given. */
    probes_file: z.string().optional(),
    tokenizer: z.object({ name: z.string(), hash: z.string() }),
    models: ModelsSchema,
    budget_tokens: z.number().int(),
    repeats: z.number().int(),
    /** Per engine row (`engine:<budget>:<name>`), the models that answered its calls, per role. */
    answering_models: z.record(z.string(), AnsweringModelsSchema),
  }),
  inputs: ["transcript", "engine:*"],
  outputs: {
    "results.json": { schema: z.string(), kind: "text", doc: "every engine's measured result" },
    "aggregate.json": { schema: z.string(), kind: "text", doc: "one summary line per engine" },
  },
  provider: false,
  run({ params, inputs }) {
    const transcript = z.object({
      messages: z.array(z.unknown()),
      hash: z.string(),
      needles: z.array(
        z.object({
          id: z.string(),
          message_index: z.number(),
          depth: z.number(),
          role: z.string(),
          position: z.string(),
        }).loose(),
      ),
      probes: z.array(z.unknown()),
    }).loose().parse(inputs.transcript);
    const rowModels: AnsweringModels[] = [];
    const engines = params.budgets.flatMap(({ budget }) =>
      params.engines.map((name) => {
        const key = engineInputKey(name, budget);
        const value = inputs[key];
        if (value === undefined) throw new Error(`engines-aggregate: no input ${key}`);
        rowModels.push(params.answering_models[key] ?? {});
        return value as MeasuredEngine;
      })
    );
    const answering = mergeAnsweringModels(rowModels);
    const results = {
      suite: "engines",
      transcript: {
        hash: transcript.hash,
        description: params.description,
        messages: transcript.messages.length,
        // Every engine row counts the same input: the transcript's tokens.
        tokens: engines[0]?.input_tokens ?? null,
        // Where each needle sits: its message, its depth (0 first message, 1 last), role and position.
        needles: transcript.needles.map(({ id, message_index, depth, role, position }) => ({
          id,
          message_index,
          depth,
          role,
          position,
        })),
        probes: transcript.probes.length,
        ...(params.probes_file !== undefined ? { probes_file: params.probes_file } : {}),
      },
      tokenizer: params.tokenizer,
      models: params.models,
      answering_models: answering,
      budget_tokens: params.budget_tokens,
      budgets: params.budgets,
      ...(params.context_lengths !== undefined ? { context_lengths: params.context_lengths } : {}),
      repeats: params.repeats,
      engines,
    };
    const aggregate = {
      suite: "engines",
      transcript: { hash: transcript.hash, messages: transcript.messages.length },
      answering_models: answering,
      budget_tokens: params.budget_tokens,
      budgets: params.budgets,
      engines: engines.map((e, i) => ({
        engine: e.engine,
        kind: e.kind,
        budget: e.budget,
        budget_tokens: e.budget_tokens,
        status: e.status,
        reason: e.status === "skipped" ? e.reason : null,
        input_tokens: e.input_tokens,
        output_tokens: e.output_tokens,
        savings_pct: e.savings_pct,
        within_budget: e.within_budget,
        tool_pairing_valid: e.tool_pairing_valid,
        needle_recall: e.needles.recall,
        qa_recall: e.qa?.recall ?? null,
        probe_recall: e.probes?.recall ?? null,
        recall_tools: e.recovery?.tools ?? null,
        qa_recall_recovery: e.recovery?.qa?.recall ?? null,
        probe_recall_recovery: e.recovery?.probes?.recall ?? null,
        context_length: e.context_length ?? null,
        timing: e.timing ?? null,
        compress_cold_ms: e.compress_ms?.cold ?? null,
        compress_warm_median_ms: e.compress_ms?.warm_median ?? null,
        compress_warm_p95_ms: e.compress_ms?.warm_p95 ?? null,
        startup_ms: e.startup_ms ?? null,
        latency_cold_ms: e.latency_ms.cold,
        latency_warm_mean_ms: e.latency_ms.warm_mean,
        latency_warm_median_ms: e.latency_ms.warm_median,
        models: rowModels[i],
      })),
    };
    return Promise.resolve({
      outputs: { "results.json": publishedJson(results), "aggregate.json": publishedJson(aggregate) },
    });
  },
});
