/**
 * `hotpot-report`: REPORT.md and report.html from `aggregate.json`, the corpus head and question cards.
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { hotpotReportHtml } from "../report_html.ts";
import type { HotpotMethodAggregate } from "../../run/aggregate.ts";
import { type CeilingResult, hotpotReportMarkdown, invalidReasons } from "../report.ts";
import { CorpusHeadSchema, QuestionCardSchema, type ReportCorpus } from "../../question_card.ts";
import { hotpotStats } from "../stats.ts";
import { finiteOrNull } from "../../../../analysis/format.ts";
import { ceilingOf } from "../../run/stages/ceilings.ts";
import { type HotpotRowFigures, readRowFigures } from "../../run/rows.ts";
import { parseJson } from "../../../../core/json_read.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../../models/messages.ts";
import { isPlainChatRequest } from "../../../../models/plain_requests.ts";
import { hotpotExplorerPacked } from "../explorer.ts";
import type { RunCost } from "../../../../analysis/cost.ts";

/** The corpus as the report reads it: the head, and the run's question cards in corpus order. */
async function reportCorpus(
  head: unknown,
  cardIds: readonly string[],
  load: (name: string) => Promise<unknown>,
): Promise<ReportCorpus> {
  const parsed = CorpusHeadSchema.parse(head);
  const have = new Set(cardIds);
  const questions = [];
  for (const id of parsed.question_ids) {
    if (have.has(id)) questions.push(QuestionCardSchema.parse(await load(`card:${id}`)));
  }
  if (questions.length !== have.size) {
    throw new Error("hotpot-report: a card's question is not in the corpus head");
  }
  return { ...parsed, questions };
}

/** The `hotpot-report` stage. */
export const hotpotReportStage = defineStage({
  name: "hotpot-report",
  version: 12,
  doc: "REPORT.md and report.html of a hotpot run, from its aggregate, the corpus head and question cards.",
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
    /** The engine methods (absent: none). */
    engines: z.array(z.object({ name: z.string(), spec: z.string(), deterministic: z.boolean() })).optional(),
  }),
  // `aggregate`/`results`: the primary ceiling's; `ceiling-*:<cap>`: every ceiling's, in a sweep only.
  // `card:<question id>`: every question of the run (shard); `head`: the corpus head (question order).
  inputs: ["aggregate", "head", "card:*", "results", "context:*", "ceiling-aggregate:*", "ceiling-results:*"],
  textInputs: ["aggregate", "ceiling-aggregate:*", "ceiling-results:*"],
  // The rows are read one at a time from the bytes (rows.ts): only their figures are held.
  bytesInputs: ["results"],
  // Cards and contexts are read one at a time; the rows' bytes are read when their figures are taken, and
  // dropped then.
  lazyInputs: ["card:*", "context:*", "results"],
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
  async run({ params, inputs, hashes, load }) {
    const aggregates = parseJson(z.string().parse(inputs.aggregate)) as HotpotMethodAggregate[];
    const cardIds = Object.keys(hashes).filter((name) => name.startsWith("card:")).map((name) =>
      name.slice(5)
    );
    const meta = {
      corpus: await reportCorpus(inputs.head, cardIds, load),
      models: params.models,
      tokenizer: params.tokenizer,
      inputCap: params.input_cap,
      reserve: params.reserve,
      compressions: params.compressions,
      answers: params.answers,
      ...(params.engines ? { engines: params.engines } : {}),
    };
    const analysis = await hotpotAnalysis(
      aggregates,
      meta.corpus,
      readRowFigures(z.instanceof(Uint8Array).parse(await load("results"))),
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
      const stats = parseJson(statsJson) as Record<string, unknown>;
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

const Messages = z.array(ChatMessageSchema);

/** Stats, explorer and cost for the report meta, and stats.json. */
export async function hotpotAnalysis(
  aggregates: readonly HotpotMethodAggregate[],
  corpus: ReportCorpus,
  rows: readonly HotpotRowFigures[],
  loadContext: (hash: string) => Promise<unknown>,
  resamples: number,
  cost: unknown,
): Promise<{ meta: Record<string, unknown>; statsJson: string }> {
  const contexts = async (hash: string) => {
    const value = await loadContext(hash);
    // Plain messages (what the context stage writes) are taken as read: the check says yes only where the
    // schema accepts, and the explorer reads only the fields it checked, sparing a schema walk.
    if (isPlainChatRequest({ messages: value })) return value as ChatMessage[];
    const parsed = Messages.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  };
  const stats = hotpotStats(rows, aggregates.map((a) => a.method), { resamples });
  return {
    meta: {
      stats,
      invalidReasons: invalidReasons(rows),
      explorer: await hotpotExplorerPacked(corpus, rows, contexts),
      ...(cost ? { cost: cost as RunCost } : {}),
    },
    statsJson: `${JSON.stringify(finiteOrNull(stats), null, 2)}\n`,
  };
}
