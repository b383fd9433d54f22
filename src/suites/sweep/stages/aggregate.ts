/**
 * `sweep-aggregate`: every answer row of the sweep (from its answer, status, score and context blobs) gathered
 * into `results.json` and averaged per context kind into `aggregate.json`. Its inputs are every answer, every
 * score and every context of the run — an over-budget or failed context counts zero, so it is an input too.
 *
 * @module
 */
import { AnsweringModelsSchema } from "../../../core/answering_models.ts";
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { AnswerStatusSchema, StoredAnswerSchema } from "../../answer_stage.ts";
import { publishedJson, rowIds, rowInput } from "../../published.ts";
import { aggregateSweep } from "../aggregate.ts";
import { contextKinds } from "../contexts.ts";
import type { SweepResultRow } from "../rows.ts";
import { SweepContextInfoSchema } from "./context.ts";
import { SweepScoreSchema } from "./score.ts";

/** The `sweep-aggregate` stage. */
export const sweepAggregateStage = defineStage({
  name: "sweep-aggregate",
  // 2: each kind's aggregate names the models that answered its calls, per role (`models`).
  version: 2,
  doc: "Every answer row (results.json) and the per-kind aggregate (aggregate.json) of a sweep run.",
  // `methods`: the run's other methods (declared or engines), after full, S and S+TopN (absent: none).
  params: z.object({
    top_n: z.array(z.number().int()),
    methods: z.array(z.string()).optional(),
    /** Per context kind, the models that answered its calls (the call records' `model`), per role. */
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
    const rows: SweepResultRow[] = rowIds(inputs).map((row) => {
      const status = AnswerStatusSchema.parse(inputs[rowInput("status", row)]);
      const answer = StoredAnswerSchema.nullable().parse(inputs[rowInput("answer", row)]);
      const score = SweepScoreSchema.parse(inputs[rowInput("score", row)]);
      const info = SweepContextInfoSchema.parse(inputs[rowInput("info", row)]);
      const p = status.params as { kind: string; generation: number; answer_index: number };
      const valid = status.status === "ok" && answer !== null;
      return {
        kind: p.kind,
        generation: p.generation,
        answer_index: p.answer_index,
        status: valid ? "ok" : "invalid",
        reason: valid ? null : status.reason,
        context_tokens: info.tokens,
        within_cap: info.within_cap,
        input_tokens: answer?.usage.prompt_tokens ?? null,
        fact_score: valid ? score.fact_score : 0,
        facts: score.facts,
        repair_all_passed: valid && score.all_passed,
        repair: score.repair,
        answer_text: answer?.content ?? null,
      };
    });
    const order = new Map(kinds.map((k, i) => [k, i]));
    rows.sort((a, b) =>
      order.get(a.kind)! - order.get(b.kind)! || a.generation - b.generation ||
      a.answer_index - b.answer_index
    );
    return Promise.resolve({
      outputs: {
        "results.json": publishedJson(rows),
        "aggregate.json": publishedJson(aggregateSweep(rows, kinds, params.answering_models)),
      },
    });
  },
});
