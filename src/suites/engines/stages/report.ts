/**
 * `engines-report`: stats.json, REPORT.md and report.html from the aggregate's `results.json` and the
 * transcript (the explorer's needles and probes), published exactly as output.
 * @module
 */
import type { AnsweringModels } from "../../../core/answering_models.ts";
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { enginesReportHtml } from "../report_html.ts";
import { engineLabel, enginesReportMarkdown } from "../report.ts";
import type { EngineResult } from "../run.ts";
import type { MeasuredEngine } from "./engine.ts";
import { enginesStats } from "../stats.ts";
import { locomoStats } from "../locomo_report.ts";
import { finiteOrNull } from "../../../analysis/format.ts";
import { enginesExplorerOf } from "../explorer.ts";
import { StoredTranscriptSchema } from "./transcript.ts";
import { parseJson } from "../../../core/json_read.ts";

/** The `engines-report` stage. */
export const enginesReportStage = defineStage({
  name: "engines-report",
  version: 12,
  doc: "stats.json, REPORT.md and report.html of an engines run, from its results and transcript.",
  params: z.object({
    tokenizer: z.string(),
    reference: z.boolean(),
    bootstrap: z.number().int().positive(),
  }),
  inputs: ["results", "transcript"],
  textInputs: ["results"],
  outputs: {
    "stats.json": {
      schema: z.string(),
      kind: "text",
      doc: "95% intervals of recall and latency per engine and budget, published as stats.json",
    },
    "REPORT.md": { schema: z.string(), kind: "text", doc: "the Markdown report, published as REPORT.md" },
    "report.html": { schema: z.string(), kind: "text", doc: "the HTML report, published as report.html" },
  },
  provider: false,
  run({ params, inputs }) {
    const results = parseJson(z.string().parse(inputs.results)) as {
      transcript: { hash: string; description: string };
      models: { chat_model: string; decision_model: string };
      answering_models?: AnsweringModels;
      repeats: number;
      budgets?: { budget: string; budget_tokens: number }[];
      engines: MeasuredEngine[];
    };
    const transcript = StoredTranscriptSchema.parse(inputs.transcript);
    const engines: EngineResult[] = results.engines.map((e) => ({ ...e, window: null, records: [] }));
    const stats = enginesStats(engines.map((r) => ({ ...r, engine: engineLabel(r) })), {
      resamples: params.bootstrap,
    });
    // Pooled over the conversations of each engine (its label without them).
    const locomo = locomoStats(
      engines.map((r) => ({
        ...r,
        engine: engineLabel(r),
        group: engineLabel({ ...r, conversation: undefined }),
      })),
      { resamples: stats.resamples, seed: stats.seed },
    );
    if (locomo !== null) stats.locomo = locomo;
    const meta = {
      transcript: results.transcript.description,
      transcriptHash: results.transcript.hash,
      tokenizer: params.tokenizer,
      chatModel: results.models.chat_model,
      decisionModel: results.models.decision_model,
      ...(results.answering_models ? { answering: results.answering_models } : {}),
      reference: params.reference,
      repeats: results.repeats,
      ...(results.budgets ? { budgets: results.budgets } : {}),
      stats,
      // The transcript input is the first conversation's: a --sample run's explorer shows its rows.
      explorer: enginesExplorerOf(
        transcript,
        engines.filter((r) =>
          r.conversation === undefined || r.conversation.sample === engines[0].conversation?.sample
        ),
        (results.budgets?.length ?? 1) > 1,
      ),
    };
    return Promise.resolve({
      outputs: {
        "stats.json": `${JSON.stringify(finiteOrNull(stats), null, 2)}\n`,
        "REPORT.md": enginesReportMarkdown(engines, meta),
        "report.html": enginesReportHtml(engines, meta),
      },
    });
  },
});
