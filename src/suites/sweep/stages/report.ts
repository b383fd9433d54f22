/**
 * `sweep-report`: REPORT.md, report.html and stats.json from the aggregate's (in a ceiling sweep, every
 * ceiling's) files, with every context the answers were given as inputs for the explorer.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { UsageSchema } from "../../../core/usage.ts";
import { sweepReportHtml } from "../report_html.ts";
import type { SweepKindAggregate, SweepResultRow } from "../aggregate.ts";
import { sweepReportMarkdown, type SweepReportMeta } from "../report.ts";
import { sweepStats } from "../stats.ts";
import { REPORT_OUTPUTS, RunModelsSchema, statsJson } from "../../../analysis/report_inputs.ts";
import type { RunCost } from "../../../analysis/cost.ts";
import { sweepExplorer } from "../explorer.ts";
import type { SweepCeilingResult } from "../ceiling.ts";
import { ceilingOf, ceilingRows } from "../../answer_pipeline.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import { SweepContextInfoSchema } from "./context.ts";
import { parseJson } from "../../../core/json_read.ts";

const Messages = z.array(ChatMessageSchema);

/** The `sweep-report` stage. */
export const sweepReportStage = defineStage({
  name: "sweep-report",
  // 3: answering models; 4: "not a finding" marks and invalid shares; 5: chart axis, legend and label wraps.
  version: 5,
  doc:
    "REPORT.md, report.html and stats.json of a sweep run, from its aggregate and rows (every ceiling's in a " +
    "ceiling sweep) and the contexts the answers were given (for the explorer).",
  params: z.object({
    fixture: z.object({
      name: z.string(),
      hash: z.string(),
      units: z.number().int(),
      facts: z.number().int(),
    }),
    models: RunModelsSchema,
    tokenizer: z.string(),
    options: z.object({
      compressions: z.number().int(),
      topN: z.array(z.number().int()),
      inputCap: z.number().int(),
      inputCaps: z.array(z.number().int()).min(2).optional(),
      summaryAllowance: z.number().int(),
      reserve: z.number().int(),
      answers: z.number().int(),
      summaryRetries: z.number().int(),
      answerMaxTokens: z.number().int(),
    }),
    compression_usage: UsageSchema, // this run's own (reused nodes made their calls in the frozen run)
    reused_compression: z.number().int(),
    frozen_run: z.string().nullable(), // by manifest hash, never a path
    bootstrap: z.number().int().positive(),
    cost: z.unknown().nullable(), // null without prices
    ceilings: z.array(z.number().int()).min(2).optional(), // a ceiling sweep's, as given
    engines: z.array(z.object({ name: z.string(), spec: z.string(), deterministic: z.boolean() })).optional(),
  }),
  // `aggregate`/`results`: the primary ceiling's; `context:kind=<k> gen=<g>[ cap=<c>]` and its `context-info:`.
  inputs: [
    "aggregate",
    "results",
    "ceiling-aggregate:*",
    "ceiling-results:*",
    "context:*",
    "context-info:*",
  ],
  textInputs: ["aggregate", "results", "ceiling-aggregate:*", "ceiling-results:*"],
  outputs: REPORT_OUTPUTS,
  provider: false,
  run({ params, inputs }) {
    const aggregates = parseJson(z.string().parse(inputs.aggregate)) as SweepKindAggregate[];
    const rows = parseJson(z.string().parse(inputs.results)) as SweepResultRow[];
    const stats = sweepStats(rows, aggregates.map((a) => a.kind), { resamples: params.bootstrap });
    const contexts = new Map<string, ChatMessage[] | null>();
    const kept = new Map<string, string[]>();
    for (const [name, value] of Object.entries(inputs)) {
      if (name.startsWith("context:")) contexts.set(name, Messages.nullable().parse(value));
      if (name.startsWith("context-info:")) {
        kept.set(`context:${name.slice("context-info:".length)}`, SweepContextInfoSchema.parse(value).kept);
      }
    }
    // Ascending, so the table and the frontier read from the tightest ceiling to the loosest.
    const ceilings: SweepCeilingResult[] | undefined = params.ceilings &&
      [...params.ceilings].sort((a, b) => a - b)
        .map((cap) => {
          const { aggregates, rows } = ceilingOf<SweepKindAggregate, SweepResultRow>(inputs, cap);
          const kinds = aggregates.map((a) => a.kind);
          return { cap, aggregates, stats: sweepStats(rows, kinds, { resamples: params.bootstrap }) };
        });
    // In a ceiling sweep the explorer shows every ceiling's conditions (Full once).
    const explorerRows = params.ceilings
      ? ceilingRows<SweepResultRow, "kind">("kind", inputs, params.ceilings)
      : rows;
    const meta: SweepReportMeta = {
      fixture: params.fixture,
      models: params.models,
      tokenizer: params.tokenizer,
      options: params.options,
      compressionUsage: params.compression_usage,
      reusedCompression: params.reused_compression,
      ...(params.frozen_run !== null ? { frozenRun: params.frozen_run } : {}),
      ...(params.engines ? { engines: params.engines } : {}),
      stats,
      explorer: sweepExplorer(explorerRows, contexts, kept),
      ...(params.cost ? { cost: params.cost as RunCost } : {}),
      ...(ceilings ? { ceilings } : {}),
    };
    return Promise.resolve({
      outputs: {
        "stats.json": statsJson(stats, ceilings),
        "REPORT.md": sweepReportMarkdown(aggregates, meta),
        "report.html": sweepReportHtml(aggregates, meta),
      },
    });
  },
});
