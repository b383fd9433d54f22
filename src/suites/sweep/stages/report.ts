/**
 * `sweep-report`: REPORT.md, report.html and stats.json rendered from the aggregate node's `aggregate.json`
 * and `results.json` (in a ceiling sweep, every ceiling's), with every context the answers were given (and
 * its record of kept evidence units) as inputs for the explorer; all are published exactly as this node
 * outputs them.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { UsageSchema } from "../../../core/usage.ts";
import { sweepReportHtml } from "../report_html.ts";
import type { SweepKindAggregate } from "../aggregate.ts";
import { sweepReportMarkdown } from "../report.ts";
import type { SweepResultRow } from "../rows.ts";
import { sweepStats } from "../stats.ts";
import { finiteOrNull } from "../../../analysis/format.ts";
import type { RunCost } from "../../../analysis/cost.ts";
import { sweepExplorer } from "../explorer.ts";
import type { SweepCeilingResult } from "../ceiling.ts";
import { sweepCeilingOf, sweepCeilingRows } from "./ceilings.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import { SweepContextInfoSchema } from "./context.ts";
import { parseJson } from "../../../core/json_read.ts";

const Messages = z.array(ChatMessageSchema);

const ModelsSchema = z.object({
  mode: z.string(),
  chat_model: z.string(),
  decision_model: z.string(),
  note: z.string(),
});

/** The `sweep-report` stage. */
export const sweepReportStage = defineStage({
  name: "sweep-report",
  // 3: the Models line names the models that answered beside the requested ones; a run whose answering model
  // changed mid-run says so at the top of REPORT.md and report.html.
  // v4: the paired table marks a comparison whose contexts had mostly invalid answers ("not a finding");
  // stats.json gives each kind's invalid share.
  // v5: charts: intervals past the axis marked, legends wrap into rows, labels wrap to three lines.
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
    models: ModelsSchema,
    tokenizer: z.string(),
    options: z.object({
      compressions: z.number().int(),
      topN: z.array(z.number().int()),
      inputCap: z.number().int(),
      /** A ceiling sweep's ceilings as given (absent: one ceiling). */
      inputCaps: z.array(z.number().int()).min(2).optional(),
      summaryAllowance: z.number().int(),
      reserve: z.number().int(),
      answers: z.number().int(),
      summaryRetries: z.number().int(),
      answerMaxTokens: z.number().int(),
    }),
    /** This run's compression calls (nodes reused from a frozen run made theirs there). */
    compression_usage: UsageSchema,
    reused_compression: z.number().int(),
    /** The frozen run the compression nodes came from, by manifest hash (never a path). */
    frozen_run: z.string().nullable(),
    /** Bootstrap resamples of the intervals. */
    bootstrap: z.number().int().positive(),
    /** The cost section (from recorded usage and the given prices), or null without prices. */
    cost: z.unknown().nullable(),
    /** A ceiling sweep's ceilings as given (the first is `options.inputCap`); absent: one ceiling. */
    ceilings: z.array(z.number().int()).min(2).optional(),
    /** The engine methods (absent: none). */
    engines: z.array(z.object({ name: z.string(), spec: z.string(), deterministic: z.boolean() })).optional(),
  }),
  // `aggregate`/`results`: the primary ceiling's; `ceiling-*:<cap>`: every ceiling's, in a sweep only.
  // `context:kind=<k> gen=<g>[ cap=<c>]`: the context each generation and kind was answered from (explorer).
  // `context-info:…`: its record (the evidence units it kept verbatim).
  inputs: [
    "aggregate",
    "results",
    "ceiling-aggregate:*",
    "ceiling-results:*",
    "context:*",
    "context-info:*",
  ],
  textInputs: ["aggregate", "results", "ceiling-aggregate:*", "ceiling-results:*"],
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
  run({ params, inputs }) {
    const aggregates = parseJson(z.string().parse(inputs.aggregate)) as SweepKindAggregate[];
    const meta = {
      fixture: params.fixture,
      models: params.models,
      tokenizer: params.tokenizer,
      options: params.options,
      compressionUsage: params.compression_usage,
      reusedCompression: params.reused_compression,
      ...(params.frozen_run !== null ? { frozenRun: params.frozen_run } : {}),
      ...(params.engines ? { engines: params.engines } : {}),
    };
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
    // In a ceiling sweep the explorer shows every ceiling's conditions (Full once).
    const explorerRows = params.ceilings ? sweepCeilingRows(inputs, params.ceilings) : rows;
    Object.assign(meta, {
      stats,
      explorer: sweepExplorer(explorerRows, contexts, kept),
      ...(params.cost ? { cost: params.cost as RunCost } : {}),
    });
    let statsJson = `${JSON.stringify(finiteOrNull(stats), null, 2)}\n`;
    if (params.ceilings) {
      // Ascending, so the table and the frontier read from the tightest ceiling to the loosest.
      const ceilings: SweepCeilingResult[] = [...params.ceilings].sort((a, b) => a - b).map((cap) => {
        const { aggregates, rows } = sweepCeilingOf(inputs, cap);
        const kinds = aggregates.map((a) => a.kind);
        return { cap, aggregates, stats: sweepStats(rows, kinds, { resamples: params.bootstrap }) };
      });
      Object.assign(meta, { ceilings });
      statsJson = `${
        JSON.stringify(
          {
            ...finiteOrNull(stats),
            ceilings: ceilings.map((c) => ({ input_cap: c.cap, ...finiteOrNull(c.stats) })),
          },
          null,
          2,
        )
      }\n`;
    }
    return Promise.resolve({
      outputs: {
        "stats.json": statsJson,
        "REPORT.md": sweepReportMarkdown(aggregates, meta),
        "report.html": sweepReportHtml(aggregates, meta),
      },
    });
  },
});
