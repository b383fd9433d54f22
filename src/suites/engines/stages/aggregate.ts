/**
 * `engines-aggregate`: every engine node's result (`engine:<budget>:<name>`) gathered into `results.json`, and
 * one summary line per engine and budget in `aggregate.json`.
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { publishedJson } from "../../published.ts";
import { RunModelsSchema } from "../../../analysis/report_inputs.ts";
import type { MeasuredEngine } from "./engine.ts";
import { mean } from "../metrics.ts";
import { f1sByCategory, questionF1s } from "../locomo_report.ts";
import {
  type AnsweringModels,
  AnsweringModelsSchema,
  mergeAnsweringModels,
} from "../../../core/answering_models.ts";

/** The aggregate node's input key of one engine's result at one budget (and conversation of a --sample run). */
export function engineInputKey(name: string, budget: string, sample?: number): string {
  return sample === undefined ? `engine:${budget}:${name}` : `engine:s${sample}:${budget}:${name}`;
}

/** The `engines-aggregate` stage. */
export const enginesAggregateStage = defineStage({
  name: "engines-aggregate",
  version: 6,
  doc: "Every engine's measured result at every budget (results.json) and one summary line per engine and " +
    "budget (aggregate.json).",
  params: z.object({
    /** Where the transcript came from (never a path). */
    description: z.string(),
    engines: z.array(z.string()),
    budgets: z.array(z.object({ budget: z.string(), budget_tokens: z.number().int() })).min(1),
    context_lengths: z.array(z.number().int()).optional(),
    /** Rows are per conversation, then budget, then engine. */
    conversations: z.array(z.object({ sample: z.number().int().min(0), sample_id: z.string().nullable() }))
      .min(1).optional(),
    probes_file: z.string().optional(),
    tokenizer: z.object({ name: z.string(), hash: z.string() }),
    models: RunModelsSchema,
    budget_tokens: z.number().int(),
    repeats: z.number().int(),
    /** Per engine row, the models that answered its calls. */
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
      // Each needle's published fields, in this order (the rest are left out).
      needles: z.array(
        z.object({
          id: z.string(),
          message_index: z.number(),
          depth: z.number(),
          role: z.string(),
          position: z.string(),
        }),
      ),
      probes: z.array(z.unknown()),
    }).loose().parse(inputs.transcript);
    const rowModels: AnsweringModels[] = [];
    const samples = params.conversations?.map(({ sample }) => sample) ?? [undefined];
    const engines = samples.flatMap((sample) =>
      params.budgets.flatMap(({ budget }) =>
        params.engines.map((name) => {
          const key = engineInputKey(name, budget, sample);
          const value = inputs[key];
          if (value === undefined) throw new Error(`engines-aggregate: no input ${key}`);
          rowModels.push(params.answering_models[key] ?? {});
          return value as MeasuredEngine;
        })
      )
    );
    const answering = mergeAnsweringModels(rowModels);
    const results = {
      suite: "engines",
      transcript: {
        hash: transcript.hash,
        description: params.description,
        messages: transcript.messages.length,
        tokens: engines[0]?.input_tokens ?? null,
        needles: transcript.needles, // depth: 0 the first message, 1 the last
        probes: transcript.probes.length,
        ...(params.probes_file !== undefined ? { probes_file: params.probes_file } : {}),
      },
      tokenizer: params.tokenizer,
      models: params.models,
      answering_models: answering,
      budget_tokens: params.budget_tokens,
      budgets: params.budgets,
      ...(params.context_lengths !== undefined ? { context_lengths: params.context_lengths } : {}),
      ...(params.conversations ? { conversations: params.conversations } : {}),
      repeats: params.repeats,
      questions_per_prompt: 1,
      engines,
      ...(engines.some((e) => e.probes?.f1 !== undefined) ? { pooled: pooledF1(engines) } : {}),
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
        ...(e.conversation ? { conversation: e.conversation } : {}),
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
        ...(e.probes?.f1 !== undefined
          ? { qa_f1: e.probes.f1, qa_f1_recovery: e.recovery?.probes?.f1 ?? null }
          : {}),
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

/** LoCoMo F1 pooled over conversations: one entry per engine and budget, over its ok rows' questions. */
export interface PooledF1 {
  engine: string;
  budget: string;
  conversations: number;
  questions: number;
  /** Mean F1 over every question of every ok conversation row, overall, per category, with recall tools. */
  f1: number | null;
  by_category: Record<string, { questions: number; f1: number }>;
  f1_recovery: number | null;
}

/** Pools the LoCoMo F1 of every engine and budget over its conversations' rows (see {@link PooledF1}). */
export function pooledF1(rows: readonly MeasuredEngine[]): PooledF1[] {
  const groups = Map.groupBy(rows, (row) => JSON.stringify([row.engine, row.budget]));
  return [...groups.values()].map((group) => {
    const ok = group.filter((row) => row.status === "ok" && row.probes?.f1 !== undefined);
    const scores = ok.flatMap((row) => questionF1s(row.probes));
    const recovered = ok.filter((row) => row.recovery?.probes?.f1 !== undefined);
    return {
      engine: group[0].engine,
      budget: group[0].budget,
      conversations: ok.length,
      questions: scores.length,
      f1: mean(scores.map((s) => s.f1)),
      by_category: Object.fromEntries(
        f1sByCategory(scores).map(([type, v]) => [type, { questions: v.length, f1: mean(v)! }]),
      ),
      // No recovered row: no F1 (the mean of none is null).
      f1_recovery: mean(recovered.flatMap((row) => questionF1s(row.recovery?.probes)).map((s) => s.f1)),
    };
  });
}
