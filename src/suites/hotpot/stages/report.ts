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
import { parseCorpusInPlace } from "./question.ts";
import type { Corpus } from "../corpus.ts";
import { hotpotAnalysis } from "../analysis.ts";
import { hotpotStats } from "../stats.ts";
import { finiteOrNull } from "../../../analysis/format.ts";
import type { CeilingResult } from "../ceiling_sweep.ts";
import { ceilingOf } from "./ceilings.ts";

/** The corpus without its trajectories (no report reads them; they are half a corpus's size). */
function withoutTrajectories(corpus: Corpus): Corpus {
  for (const question of corpus.questions) question.trajectory = [];
  return corpus;
}

/** The `hotpot-report` stage. */
export const hotpotReportStage = defineStage({
  name: "hotpot-report",
  version: 3,
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
    /** A ceiling sweep's ceilings as given (the first is `input_cap`); absent: one ceiling. */
    ceilings: z.array(z.number().int()).min(2).optional(),
  }),
  // `aggregate`/`results`: the primary ceiling's; `ceiling-*:<cap>`: every ceiling's, in a sweep only.
  inputs: ["aggregate", "corpus", "results", "context:*", "ceiling-aggregate:*", "ceiling-results:*"],
  textInputs: ["aggregate", "results", "ceiling-aggregate:*", "ceiling-results:*"],
  // The corpus is parsed once (not held raw besides); contexts are read one at a time by the explorer.
  lazyInputs: ["corpus", "context:*"],
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
  async run({ params, inputs, load }) {
    const aggregates = JSON.parse(z.string().parse(inputs.aggregate)) as HotpotMethodAggregate[];
    const meta = {
      corpus: withoutTrajectories(parseCorpusInPlace(await load("corpus"))),
      models: params.models,
      tokenizer: params.tokenizer,
      inputCap: params.input_cap,
      reserve: params.reserve,
      compressions: params.compressions,
      answers: params.answers,
    };
    const analysis = await hotpotAnalysis(
      aggregates,
      meta.corpus,
      z.string().parse(inputs.results),
      (hash) => load(`context:${hash}`),
      params.bootstrap,
      params.cost,
    );
    Object.assign(meta, analysis.meta);
    let statsJson = analysis.statsJson;
    if (params.ceilings) {
      // Ascending, so the table and the frontier read from the tightest ceiling to the loosest.
      const ceilings: CeilingResult[] = [...params.ceilings].sort((a, b) => a - b).map((cap) => {
        const { aggregates, rows } = ceilingOf(inputs, cap);
        const methods = aggregates.map((a) => a.method);
        return { cap, aggregates, stats: hotpotStats(rows, methods, { resamples: params.bootstrap }) };
      });
      Object.assign(meta, { ceilings });
      const stats = JSON.parse(statsJson) as Record<string, unknown>;
      stats.ceilings = ceilings.map((c) => ({ input_cap: c.cap, ...finiteOrNull(c.stats) }));
      statsJson = `${JSON.stringify(stats, null, 2)}\n`;
    }
    const outputs = {
      "stats.json": statsJson,
      "REPORT.md": hotpotReportMarkdown(aggregates, meta),
      "report.html": hotpotReportHtml(aggregates, meta),
    };
    return { outputs };
  },
});
