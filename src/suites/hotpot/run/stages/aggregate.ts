/**
 * `hotpot-aggregate`: every answer row of the run, from the questions' rows nodes, into `results.json`, averaged
 * into `aggregate.json`; with the corpus head as an input, the published numbers descend from every node. And
 * `hotpot-ceilings`: a ceiling sweep's rows and aggregates over the per-ceiling aggregates (`answer_pipeline.ts`).
 *
 * @module
 */
import { z } from "zod";
import { defineCeilingsStage } from "../../../answer_pipeline.ts";
import { defineStage } from "../../../../pipeline/stage.ts";
import { UsageSchema } from "../../../../store/manifest.ts";
import { AnsweringModelsSchema } from "../../../../core/answering_models.ts";
import { PublishedArrayBytes, publishedJson } from "../../../published.ts";
import { aggregateHotpot } from "../aggregate.ts";
import { type HotpotRowCore, QuestionRowsSchema } from "./rows.ts";

/** The input naming the rows node of question `id`. */
export const rowsInput = (id: string) => `rows:${id}`;

/** Ids made of digits and lower-case ASCII letters only (HotpotQA's are 24 hexadecimal digits). */
const PLAIN_ID = /^[0-9a-z]*$/;

/** Whether the default collation (root, English, POSIX) orders {@link PLAIN_ID} ids as their code units. */
const CODE_ORDER_COLLATION = /^(und|en(-[A-Z]{2})?(-u-va-posix)?)$/.test(navigator.language);

/**
 * Question ids in results.json's order: by `localeCompare`, ties by code units; plain ids under such a collation
 * as code units (the same order without loading the collation data, which a first `localeCompare` costs).
 */
export function compareQuestionIds(a: string, b: string): number {
  if (CODE_ORDER_COLLATION && PLAIN_ID.test(a) && PLAIN_ID.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The `hotpot-aggregate` stage. */
export const hotpotAggregateStage = defineStage({
  name: "hotpot-aggregate",
  version: 5, // 5: each method's aggregate names the models that answered its calls, per role
  doc:
    "Every answer row (results.json) and the per-method aggregate (aggregate.json) of a hotpot run, from " +
    "its questions' rows nodes.",
  params: z.object({
    methods: z.array(z.string()),
    compression_usage: z.record(z.string(), UsageSchema), // per method: its rank, summary and engine nodes'
    answering_models: z.record(z.string(), AnsweringModelsSchema),
  }),
  inputs: ["head", "rows:*"],
  hashOnlyInputs: ["head"],
  outputs: {
    "results.json": {
      schema: z.string(),
      kind: "text",
      held: false,
      doc: "every answer row, published as results.json",
    },
    "aggregate.json": {
      schema: z.string(),
      kind: "text",
      doc: "per-method means, published as aggregate.json",
    },
  },
  provider: false,
  // Read one question at a time: each row is held as its published bytes and its core figures only.
  lazyInputs: ["rows:*"],
  async run({ params, inputs, load }) {
    const ids = Object.keys(inputs).filter((name) => name.startsWith("rows:")).map((name) => name.slice(5));
    ids.sort(compareQuestionIds);
    const results = new PublishedArrayBytes();
    const cores: HotpotRowCore[] = [];
    for (const id of ids) {
      // Parsed into the published field order (the stored rows are canonical JSON: keys sorted).
      const { rows } = QuestionRowsSchema.parse(await load(rowsInput(id)));
      for (const row of rows) {
        if (row.question_id !== id) {
          throw new Error(`hotpot-aggregate: rows of ${id} hold a row of ${row.question_id}`);
        }
        results.add(row);
        const { answer_text: _text, prediction: _prediction, ...core } = row;
        cores.push(core);
      }
    }
    const aggregates = aggregateHotpot(
      cores,
      params.methods,
      params.compression_usage,
      params.answering_models,
    );
    return {
      outputs: { "results.json": results.chunks(), "aggregate.json": publishedJson(aggregates) },
    };
  },
});

/** The `hotpot-ceilings` stage. */
export const hotpotCeilingsStage = defineCeilingsStage({
  name: "hotpot-ceilings",
  doc:
    "A ceiling sweep's results.json and aggregate.json: every ceiling's rows and aggregates, each with its " +
    "input_cap (Full, which no ceiling limits, once with null).",
  field: "method",
  aggregateDoc: "per-method (and per-ceiling) means, published as aggregate.json",
});
