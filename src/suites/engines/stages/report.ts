/**
 * `engines-report`: REPORT.md and report.html rendered from the aggregate node's `results.json`; both are
 * published exactly as this node outputs them.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { enginesReportHtml } from "../report_html.ts";
import { enginesReportMarkdown } from "../report.ts";
import type { EngineResult } from "../run.ts";
import type { MeasuredEngine } from "./aggregate.ts";

/** The `engines-report` stage. */
export const enginesReportStage = defineStage({
  name: "engines-report",
  version: 2,
  doc: "REPORT.md and report.html of an engines run, from its results.",
  params: z.object({ tokenizer: z.string(), reference: z.boolean() }),
  inputs: ["results"],
  textInputs: ["results"],
  outputs: {
    "REPORT.md": { schema: z.string(), kind: "text", doc: "the Markdown report, published as REPORT.md" },
    "report.html": { schema: z.string(), kind: "text", doc: "the HTML report, published as report.html" },
  },
  provider: false,
  run({ params, inputs }) {
    const results = JSON.parse(z.string().parse(inputs.results)) as {
      transcript: { hash: string; description: string };
      models: { chat_model: string; decision_model: string };
      repeats: number;
      budgets?: { budget: string; budget_tokens: number }[];
      engines: MeasuredEngine[];
    };
    const engines: EngineResult[] = results.engines.map((e) => ({ ...e, window: null, records: [] }));
    const meta = {
      transcript: results.transcript.description,
      transcriptHash: results.transcript.hash,
      tokenizer: params.tokenizer,
      chatModel: results.models.chat_model,
      decisionModel: results.models.decision_model,
      reference: params.reference,
      repeats: results.repeats,
      ...(results.budgets ? { budgets: results.budgets } : {}),
    };
    return Promise.resolve({
      outputs: {
        "REPORT.md": enginesReportMarkdown(engines, meta),
        "report.html": enginesReportHtml(engines, meta),
      },
    });
  },
});
