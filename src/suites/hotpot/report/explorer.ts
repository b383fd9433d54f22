/**
 * The hotpot explorer's data: per question its gold, every answer, and per method and generation the context
 * with each gold sentence marked kept or lost; "right" filters mean half of the answers exact-match.
 * @module
 */
import type { ChatMessage } from "../../../models/messages.ts";
import type { ReportCorpus } from "../question_card.ts";
import type { HotpotRowFigures } from "../run/rows.ts";
import {
  type ExplorerData,
  type ExplorerItem,
  ExplorerPacker,
  type ExplorerSection,
  type PackedExplorer,
} from "../../../report/explorer.ts";

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
  const byQuestion = new Map<string, HotpotRowFigures[]>();
  for (const r of rows) byQuestion.set(r.question_id, [...(byQuestion.get(r.question_id) ?? []), r]);
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
    for (const r of mine) {
      const label = conditionLabel(r);
      if (seen.has(label)) continue;
      seen.add(label);
      const messages = r.context_hash ? await contexts(r.context_hash) : undefined;
      if (!messages) {
        sections.push({ heading: `Context ${label}: not built (${r.reason ?? "invalid"})` });
        continue;
      }
      let index = contextIndex.get(r.context_hash!);
      if (index === undefined && embed) {
        index = sink.addContext(messages);
        contextIndex.set(r.context_hash!, index);
      }
      const text = messages.map((m) => m.content ?? "").join("\n");
      const marks = goldSentences.map((g) => g.text !== "" && text.includes(g.text));
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
      {
        id: "full_right",
        label: "Full right,",
        options: compressed.map((m) => ({ value: m, label: `${m} wrong` })),
      },
      {
        id: "full_wrong",
        label: "Full wrong,",
        options: compressed.map((m) => ({ value: m, label: `${m} right` })),
      },
    ],
  };
}
