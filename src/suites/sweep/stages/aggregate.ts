/**
 * `sweep-aggregate`: every answer row of the sweep (from its answer, status, score and context blobs) into
 * `results.json`, averaged per context kind into `aggregate.json` (an invalid context counts zero).
 *
 * @module
 */
import { AnsweringModelsSchema } from "../../../core/answering_models.ts";
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { answerRows } from "../../answer_stage.ts";
import { publishedJson } from "../../published.ts";
import { aggregateSweep } from "../aggregate.ts";
import { contextKinds } from "../contexts.ts";
import type { SweepResultRow } from "../rows.ts";
import { SweepContextInfoSchema } from "./context.ts";
import { SweepScoreSchema } from "./score.ts";

/** The `sweep-aggregate` stage. */
export const sweepAggregateStage = defineStage({
  name: "sweep-aggregate",
  version: 2, // 2: each kind's aggregate names the models that answered its calls, per role
  doc: "Every answer row (results.json) and the per-kind aggregate (aggregate.json) of a sweep run.",
  params: z.object({
    top_n: z.array(z.number().int()),
    methods: z.array(z.string()).optional(), // the methods after full, S and S+TopN
    answering_models: z.record(z.string(), AnsweringModelsSchema),
  }),
  inputs: ["status:*", "answer:*", "score:*", "info:*"],
  outputs: {
    "results.json": { schema: z.string(), kind: "text", doc: "every answer row, published as results.json" },
    "aggregate.json": {
      schema: z.string(),
      kind: "text",
      doc: "per-kind means, published as aggregate.json",
    },
  },
  provider: false,
  run({ params, inputs }) {
    const kinds = [...contextKinds(params.top_n), ...(params.methods ?? [])];
    const schemas = { score: SweepScoreSchema, info: SweepContextInfoSchema };
    const rows: SweepResultRow[] = answerRows(inputs, schemas, { field: "kind", methods: kinds }, (r) => ({
      kind: r.params.kind,
      generation: r.params.generation,
      answer_index: r.params.answer_index,
      status: r.valid ? "ok" : "invalid",
      reason: r.valid ? null : r.status.reason,
      context_tokens: r.info.tokens,
      within_cap: r.info.within_cap,
      input_tokens: r.answer?.usage.prompt_tokens ?? null,
      fact_score: r.valid ? r.score.fact_score : 0,
      facts: r.score.facts,
      repair_all_passed: r.valid && r.score.all_passed,
      repair: r.score.repair,
      answer_text: r.answer?.content ?? null,
    }));
    return Promise.resolve({
      outputs: {
        "results.json": publishedJson(rows),
        "aggregate.json": publishedJson(aggregateSweep(rows, kinds, params.answering_models)),
      },
    });
  },
});
