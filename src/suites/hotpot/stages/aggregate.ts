/**
 * `hotpot-aggregate`: every answer row of the run, from the blobs of its nodes (the answer's status and text,
 * the score, the context's count), gathered into `results.json` and averaged into `aggregate.json`. Its inputs
 * are every score and every context of the run, so the published numbers descend, in the DAG, from every node.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { UsageSchema } from "../../../store/manifest.ts";
import { AnswerStatusSchema, StoredAnswerSchema } from "../../answer_stage.ts";
import { publishedArray, publishedArrayElement, publishedJson, rowIds, rowInput } from "../../published.ts";
import { aggregateHotpot } from "../aggregate.ts";
import { HOTPOT_METHODS, type HotpotMethod } from "../methods.ts";
import type { HotpotResultRow, HotpotRowCore } from "../rows.ts";
import { QuestionMetaSchema } from "./question.ts";
import { ContextInfoSchema } from "./context.ts";
import { HotpotScoreSchema } from "./score.ts";

/** The `hotpot-aggregate` stage. */
export const hotpotAggregateStage = defineStage({
  name: "hotpot-aggregate",
  version: 3,
  doc: "Every answer row (results.json) and the per-method aggregate (aggregate.json) of a hotpot run.",
  params: z.object({
    methods: z.array(z.enum(HOTPOT_METHODS)),
    /** Usage of this run's compression calls per method (from the rank and summary nodes' usage). */
    compression_usage: z.record(z.string(), UsageSchema),
  }),
  // `head`: the corpus head node's output, so the aggregate depends on every node that is not downstream of it.
  inputs: ["head", "meta:*", "status:*", "answer:*", "score:*", "info:*", "context:*"],
  textInputs: ["context:*"],
  // The rows name their context by hash; its text is the report's business (and the head the report's).
  hashOnlyInputs: ["head", "context:*"],
  outputs: {
    "results.json": { schema: z.string(), kind: "text", doc: "every answer row, published as results.json" },
    "aggregate.json": {
      schema: z.string(),
      kind: "text",
      doc: "per-method means, published as aggregate.json",
    },
  },
  provider: false,
  // Every row part is read when its row is built: the rows, not every blob behind them, are held.
  lazyInputs: ["meta:*", "status:*", "answer:*", "score:*", "info:*"],
  async run({ params, inputs, hashes, load }) {
    const types = new Map<string, string>();
    for (const name of Object.keys(inputs)) {
      if (!name.startsWith("meta:")) continue;
      const question = QuestionMetaSchema.parse(await load(name));
      types.set(question.id, question.type);
    }
    // Each row is held as its published text and its core (what the aggregate reads), never as a whole tree
    // of row objects: results.json is as large as the run.
    const rows: { text: string; core: HotpotRowCore }[] = [];
    for (const row of rowIds(inputs)) {
      const status = AnswerStatusSchema.parse(await load(rowInput("status", row)));
      const answer = StoredAnswerSchema.nullable().parse(await load(rowInput("answer", row)));
      const score = HotpotScoreSchema.parse(await load(rowInput("score", row)));
      const info = ContextInfoSchema.parse(await load(rowInput("info", row)));
      const p = status.params as {
        question_id: string;
        method: HotpotMethod;
        generation: number;
        answer_index: number;
      };
      const ok = status.status === "ok" && answer !== null;
      const full: HotpotResultRow = {
        question_id: p.question_id,
        type: types.get(p.question_id) ?? "unknown",
        method: p.method,
        generation: p.generation,
        answer_index: p.answer_index,
        status: ok ? "ok" : "invalid",
        reason: ok ? null : status.reason,
        answer_text: answer?.content ?? null,
        prediction: score.prediction,
        metrics: score.metrics,
        input_tokens: answer?.usage.prompt_tokens ?? null,
        context_tokens: info.tokens,
        within_cap: info.within_cap,
        sp_survival: score.sp_survival,
        context_hash: hashes[rowInput("context", row)] ?? null,
      };
      const { answer_text: _text, prediction: _prediction, ...core } = full;
      rows.push({ text: publishedArrayElement(full), core });
    }
    const order = new Map(params.methods.map((m, i) => [m, i]));
    rows.sort(({ core: a }, { core: b }) =>
      a.question_id.localeCompare(b.question_id) || order.get(a.method)! - order.get(b.method)! ||
      a.generation - b.generation || a.answer_index - b.answer_index
    );
    const aggregates = aggregateHotpot(rows.map((r) => r.core), params.methods, params.compression_usage);
    return {
      outputs: {
        "results.json": publishedArray(rows.map((r) => r.text)),
        "aggregate.json": publishedJson(aggregates),
      },
    };
  },
});
