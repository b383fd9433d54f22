/**
 * `hotpot-report`: REPORT.md and report.html rendered from the aggregate node's `aggregate.json` and the
 * corpus; both are published exactly as this node outputs them.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { hotpotReportHtml } from "../report_html.ts";
import type { HotpotMethodAggregate } from "../aggregate.ts";
import { hotpotReportMarkdown } from "../report.ts";
import { corpusOf } from "./question.ts";
import { hotpotAnalysis } from "../analysis.ts";

/** The `hotpot-report` stage. */
export const hotpotReportStage = defineStage({
  name: "hotpot-report",
  version: 2,
  doc: "REPORT.md and report.html of a hotpot run, from its aggregate and corpus.",
  params: z.object({
    models: z.object({
      mode: z.string(),
      chat_model: z.string(),
      decision_model: z.string(),
      note: z.string(),
    }),
    tokenizer: z.string(),
    input_cap: z.number().int(),
    reserve: z.number().int(),
    compressions: z.number().int(),
    answers: z.number().int(),
    /** Bootstrap resamples of the intervals. */
    bootstrap: z.number().int().positive(),
    /** The cost section (from recorded usage and the given prices), or null without prices. */
    cost: z.unknown().nullable(),
  }),
  inputs: ["aggregate", "corpus", "results", "context:*"],
  textInputs: ["aggregate", "results"],
  outputs: {
    "stats.json": {
      schema: z.string(),
      kind: "text",
      doc: "intervals and paired differences, published as stats.json",
    },
    "REPORT.md": { schema: z.string(), kind: "text", doc: "the Markdown report, published as REPORT.md" },
    "report.html": { schema: z.string(), kind: "text", doc: "the HTML report, published as report.html" },
  },
  provider: false,
  run({ params, inputs, hashes }) {
    const aggregates = JSON.parse(z.string().parse(inputs.aggregate)) as HotpotMethodAggregate[];
    const meta = {
      corpus: corpusOf(hashes.corpus, inputs.corpus),
      models: params.models,
      tokenizer: params.tokenizer,
      inputCap: params.input_cap,
      reserve: params.reserve,
      compressions: params.compressions,
      answers: params.answers,
    };
    const analysis = hotpotAnalysis(aggregates, meta.corpus, inputs, params.bootstrap, params.cost);
    Object.assign(meta, analysis.meta);
    return Promise.resolve({
      outputs: {
        "stats.json": analysis.statsJson,
        "REPORT.md": hotpotReportMarkdown(aggregates, meta),
        "report.html": hotpotReportHtml(aggregates, meta),
      },
    });
  },
});
