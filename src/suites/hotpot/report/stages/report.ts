/**
 * `hotpot-report`: REPORT.md and report.html from `aggregate.json`, the corpus head and question cards.
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { hotpotReportHtml } from "../report_html.ts";
import type { HotpotMethodAggregate } from "../../run/aggregate.ts";
import {
  type CeilingResult,
  hotpotReportMarkdown,
  type HotpotReportMeta,
  invalidReasons,
} from "../report.ts";
import { CorpusHeadSchema, QuestionCardSchema, type ReportCorpus } from "../../question_card.ts";
import { hotpotStats } from "../stats.ts";
import { REPORT_OUTPUTS, RunModelsSchema, statsJson } from "../../../../analysis/report_inputs.ts";
import { type HotpotResultRow, type HotpotRowFigures, readRowFigures } from "../../run/stages/rows.ts";
import { ceilingOf } from "../../../answer_pipeline.ts";
import { parseJson } from "../../../../core/json_read.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../../models/messages.ts";
import { isPlainChatRequest } from "../../../../models/chat_client.ts";
import type { RunCost } from "../../../../analysis/cost.ts";
import {
  type ExplorerData,
  type ExplorerItem,
  ExplorerPacker,
  type ExplorerSection,
  type PackedExplorer,
} from "../../../../report/explorer.ts";

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
    models: RunModelsSchema,
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
  // Read one at a time; the rows' bytes only while their figures are taken.
  lazyInputs: ["card:*", "context:*", "results"],
  outputs: REPORT_OUTPUTS,
  provider: false,
  async run({ params, inputs, hashes, load }) {
    const aggregates = parseJson(z.string().parse(inputs.aggregate)) as HotpotMethodAggregate[];
    const cardIds = Object.keys(hashes).filter((name) => name.startsWith("card:")).map((name) =>
      name.slice(5)
    );
    const corpus = await reportCorpus(inputs.head, cardIds, load);
    const rows = readRowFigures(z.instanceof(Uint8Array).parse(await load("results")));
    const contexts = async (hash: string) => {
      const value = await load(`context:${hash}`);
      // Plain messages are taken as read (the check accepts only what the schema does): no schema walk.
      if (isPlainChatRequest({ messages: value })) return value as ChatMessage[];
      const parsed = Messages.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    };
    const resamples = params.bootstrap;
    const stats = hotpotStats(rows, aggregates.map((a) => a.method), { resamples });
    // Ascending, so the table and the frontier read from the tightest ceiling to the loosest.
    const ceilings: CeilingResult[] | undefined = params.ceilings?.toSorted((a, b) => a - b).map((cap) => {
      const { aggregates, rows } = ceilingOf<HotpotMethodAggregate, HotpotResultRow>(inputs, cap);
      return { cap, aggregates, stats: hotpotStats(rows, aggregates.map((a) => a.method), { resamples }) };
    });
    const meta: HotpotReportMeta = {
      corpus,
      models: params.models,
      tokenizer: params.tokenizer,
      inputCap: params.input_cap,
      reserve: params.reserve,
      compressions: params.compressions,
      answers: params.answers,
      ...(params.engines ? { engines: params.engines } : {}),
      stats,
      invalidReasons: invalidReasons(rows),
      explorer: await hotpotExplorerPacked(corpus, rows, contexts),
      ...(params.cost ? { cost: params.cost as RunCost } : {}),
      ...(ceilings ? { ceilings } : {}),
    };
    const outputs = {
      "stats.json": statsJson(stats, ceilings),
      "REPORT.md": hotpotReportMarkdown(aggregates, meta),
      "report.html": hotpotReportHtml(aggregates, meta),
    };
    return { outputs };
  },
});

const Messages = z.array(ChatMessageSchema);

const pct = (x: number) => (100 * x).toFixed(1);

/** Reads the context messages of a context blob hash (undefined: the context was not built or not readable). */
export type ContextLookup = (hash: string) => Promise<ChatMessage[] | undefined>;

/** Questions whose context text the explorer embeds (the first; the rest show kept/lost and the hash). */
export const EMBEDDED_CONTEXT_QUESTIONS = 100;

/** The label of a condition: the method, with its generation when it has several, and its ceiling. */
function conditionLabel(r: HotpotRowFigures): string {
  const cap = (r as { input_cap?: number }).input_cap;
  return `${r.method}${r.method === "full" ? "" : ` gen ${r.generation}`}${
    cap !== undefined ? ` @${cap}` : ""
  }`;
}

/** Where the explorer's items and contexts go as they are made (arrays, or an {@link ExplorerPacker}). */
interface ExplorerSink {
  addContext(messages: ChatMessage[]): number;
  addItem(item: ExplorerItem): void;
}

/** The explorer data of a hotpot run; contexts are read one at a time. */
export async function hotpotExplorer(
  corpus: ReportCorpus,
  rows: readonly HotpotRowFigures[],
  contexts: ContextLookup,
): Promise<ExplorerData> {
  const items: ExplorerItem[] = [];
  const list: ChatMessage[][] = [];
  const header = await buildHotpotExplorer(corpus, rows, contexts, {
    addContext: (messages) => list.push(messages) - 1,
    addItem: (item) => void items.push(item),
  });
  return { ...header, items, contexts: list };
}

/** The same explorer packed item by item (never every item as objects): what the report embeds. */
export async function hotpotExplorerPacked(
  corpus: ReportCorpus,
  rows: readonly HotpotRowFigures[],
  contexts: ContextLookup,
): Promise<PackedExplorer> {
  const packer = new ExplorerPacker();
  const header = await buildHotpotExplorer(corpus, rows, contexts, packer);
  return packer.finish(header.title, header.itemName, header.filters);
}

async function buildHotpotExplorer(
  corpus: ReportCorpus,
  rows: readonly HotpotRowFigures[],
  contexts: ContextLookup,
  sink: ExplorerSink,
): Promise<Pick<ExplorerData, "title" | "itemName" | "filters">> {
  const contextIndex = new Map<string, number>();
  const methods = [...new Set(rows.map((r) => r.method))];
  const byQuestion = Map.groupBy(rows, (r) => r.question_id);
  for (const [position, q] of corpus.questions.entries()) {
    const embed = position < EMBEDDED_CONTEXT_QUESTIONS;
    const gold = q.gold;
    const mine = byQuestion.get(q.id) ?? [];
    const goldSentences = gold?.supporting_facts ?? [];
    const emOf = (method: string) => {
      const list = mine.filter((r) => r.method === method);
      return list.length === 0 ? null : list.reduce((a, r) => a + (r.status === "ok" ? r.metrics.em : 0), 0) /
        list.length;
    };
    const right = (em: number | null) => em !== null && em >= 0.5;
    const fullEm = emOf("full");
    const fullRightMethodWrong = methods.filter((m) => m !== "full" && right(fullEm) && !right(emOf(m)));
    const methodRightFullWrong = methods.filter((m) =>
      m !== "full" && fullEm !== null && !right(fullEm) && right(emOf(m))
    );
    const validity = [q.valid ? "collection valid" : "collection invalid"];
    if (mine.some((r) => r.status === "invalid")) validity.push("has an invalid answer");
    const sections: ExplorerSection[] = [
      {
        heading: "Question",
        open: true,
        facts: [
          ["id", q.id],
          ["type", q.type],
          ["question", q.question],
          ["gold answer", gold?.answer ?? "n/a"],
          ["collection", q.valid ? "valid" : `invalid: ${q.reason ?? ""}`],
        ],
      },
      {
        heading: `Gold supporting sentences (${goldSentences.length})`,
        open: true,
        table: {
          headers: ["title", "sentence id", "sentence"],
          rows: goldSentences.map((g) => [g.title, String(g.sent_id), g.text || "(not in the articles)"]),
        },
      },
      {
        heading: `Answers (${mine.length})`,
        open: true,
        table: {
          headers: ["condition", "answer #", "status", "answer", "EM", "F1", "SP F1", "input tokens"],
          rows: mine.map((r) => [
            conditionLabel(r),
            String(r.answer_index),
            r.status === "ok" ? "ok" : `invalid: ${r.reason ?? ""}`,
            r.shown_answer,
            r.status === "ok" ? pct(r.metrics.em) : "0.0",
            r.status === "ok" ? pct(r.metrics.f1) : "0.0",
            r.status === "ok" ? pct(r.metrics.sp_f1) : "0.0",
            r.input_tokens === null ? "n/a" : String(r.input_tokens),
          ]),
        },
      },
    ];
    const seen = new Set<string>();
    // A context two conditions share (a deterministic method's generations) is read and searched once.
    const searched = (messages: ChatMessage[] | undefined) => {
      if (!messages) return undefined;
      const text = messages.map((m) => m.content ?? "").join("\n");
      return { messages, marks: goldSentences.map((g) => g.text !== "" && text.includes(g.text)) };
    };
    const read = new Map<string, ReturnType<typeof searched>>();
    for (const r of mine) {
      const label = conditionLabel(r);
      if (seen.has(label)) continue;
      seen.add(label);
      const hash = r.context_hash;
      if (hash && !read.has(hash)) read.set(hash, searched(await contexts(hash)));
      const context = hash ? read.get(hash) : undefined;
      if (!context) {
        sections.push({ heading: `Context ${label}: not built (${r.reason ?? "invalid"})` });
        continue;
      }
      const { messages, marks } = context;
      let index = contextIndex.get(hash!);
      if (index === undefined && embed) contextIndex.set(hash!, index = sink.addContext(messages));
      sections.push({
        heading: `Context ${label}: gold SP kept ${marks.filter(Boolean).length}/${marks.length} · ${
          r.context_tokens ?? "n/a"
        } tokens`,
        table: {
          headers: ["gold sentence", "in this context"],
          rows: goldSentences.map((g, i) => [`${g.title} #${g.sent_id}`, marks[i] ? "✓ kept" : "✗ lost"]),
        },
        ...(index !== undefined ? { context: index } : {
          facts: [[
            "context text",
            `not embedded (reports embed the first ${EMBEDDED_CONTEXT_QUESTIONS} questions' contexts); blob ${r.context_hash} in the run`,
          ]] as [string, string][],
        }),
        marks: goldSentences.filter((_, i) => marks[i]).map((g) => g.text),
      });
    }
    const tags = {
      type: [q.type],
      validity,
      full_right: fullRightMethodWrong,
      full_wrong: methodRightFullWrong,
    };
    sink.addItem({ id: q.id, label: `${q.type}: ${q.question}`, tags, sections });
  }
  const compressed = methods.filter((m) => m !== "full");
  const same = (values: string[]) => values.map((v) => ({ value: v, label: v }));
  return {
    title: "hotpot questions",
    itemName: "question",
    filters: [
      { id: "type", label: "type", options: same([...new Set(corpus.questions.map((q) => q.type))].sort()) },
      {
        id: "validity",
        label: "validity",
        options: same(["collection valid", "collection invalid", "has an invalid answer"]),
      },
      // Which compressed methods disagree with Full: `full_right` lists those wrong, `full_wrong` those right.
      ...(["right", "wrong"] as const).map((full) => ({
        id: `full_${full}`,
        label: `Full ${full},`,
        options: compressed.map((m) => ({ value: m, label: `${m} ${full === "right" ? "wrong" : "right"}` })),
      })),
    ],
  };
}
