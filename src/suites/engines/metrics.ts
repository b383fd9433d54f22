/**
 * Per-engine measures: verbatim needle recall, latency statistics and LLM-free QA recall: a reply holds a fact
 * when the fact's normalized words appear in it as one run of whole words (`NOT IN CONTEXT` holds none);
 * recall pools found / expected facts; LoCoMo questions also get LoCoMo's answer F1 (a failed call scores 0).
 * @module
 */
import pLimit from "p-limit";
import type { ChatMessage } from "../../models/messages.ts";
import type { CallRecord, ChatModel } from "../../models/types.ts";
import type { Needle } from "../../data/transcripts/types.ts";
import { normalizeAnswer } from "../scoring.ts";
import { declines, locomoF1, NOT_IN_CONTEXT } from "./locomo_f1.ts";
import { addUsage } from "../../core/usage.ts";

/** Verbatim needle recall over a window. */
export interface NeedleRecall {
  total: number;
  found: number;
  recall: number | null;
  found_ids: string[];
}

/** Counts the needles whose fact sentence appears verbatim in some message of `window`. */
export function needleRecall(window: ChatMessage[], needles: Needle[]): NeedleRecall {
  const texts = window.flatMap((message) => [
    message.content ?? "",
    ...(message.tool_calls ?? []).map((call) => call.function.arguments),
  ]);
  const foundIds = needles.filter((n) => texts.some((text) => text.includes(n.fact))).map((n) => n.id);
  return {
    total: needles.length,
    found: foundIds.length,
    recall: needles.length === 0 ? null : foundIds.length / needles.length,
    found_ids: foundIds,
  };
}

/** The arithmetic mean of `values`, or null when empty. */
export function mean(values: number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** The median of `values` (mean of the middle two for an even count), or null when empty. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The nearest-rank p-th percentile (0 < p ≤ 100) of `values`, or null when empty. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** A question with the facts a correct answer holds (one for a needle). */
export interface QaItem {
  id: string;
  question: string;
  facts: string[];
  /** Probe type or category, for the per-type breakdown. */
  type?: string;
  /** A LoCoMo question: its gold answer and category (1-5). */
  locomo?: { answer: string; category: number };
}

/** One asked question. */
export interface QaAnswer {
  id: string;
  reply: string | null;
  /** Every expected fact was found. */
  correct: boolean;
  facts_found: number;
  facts_total: number;
  type?: string;
  /** LoCoMo questions only. */
  f1?: number;
  error?: string;
}

/** Pooled fact recall of a group of questions. */
export interface FactRecall {
  questions: number;
  facts: number;
  found: number;
  recall: number | null;
  /** Mean LoCoMo answer F1 over the group's `f1_questions` LoCoMo questions (absent when none). */
  f1?: number;
  f1_questions?: number;
}

/** QA recall over a window. */
export interface QaRecall {
  total: number;
  /** Questions whose every expected fact was found. */
  correct: number;
  /** Share of expected facts found (pooled), or null when there are no questions. */
  recall: number | null;
  facts_total: number;
  facts_found: number;
  by_type: Record<string, FactRecall>;
  f1?: number;
  f1_questions?: number;
  not_in_context: number;
  answers: QaAnswer[];
  usage: { input_tokens: number; output_tokens: number; calls: number };
  records: CallRecord[];
}

/** Whether `reply` counts as answering `answer` (see the module rule). */
export function isCorrectReply(reply: string, answer: string): boolean {
  if (reply.trim().replace(/[.\s]+$/, "").toUpperCase() === NOT_IN_CONTEXT) return false;
  const gold = normalizeAnswer(answer).split(" ").filter(Boolean);
  const said = normalizeAnswer(reply).split(" ").filter(Boolean);
  if (gold.length === 0) return false;
  for (let i = 0; i + gold.length <= said.length; i++) {
    if (gold.every((word, j) => said[i + j] === word)) return true;
  }
  return false;
}

/** The messages that ask `question` about `window`. */
export function qaMessages(window: ChatMessage[], question: string): ChatMessage[] {
  return [
    ...window,
    {
      role: "user",
      content: `Answer this question using only the conversation above.\nQuestion: ${question}\n` +
        `Reply with the answer alone. If the conversation above does not contain the answer, reply exactly: ` +
        NOT_IN_CONTEXT,
    },
  ];
}

/** What asking one question gave, over however many model calls it took. */
export type AskOutcome =
  | { ok: true; content: string; usage: QaRecall["usage"]; records: CallRecord[] }
  | { ok: false; error: string; usage: QaRecall["usage"]; records: CallRecord[] };

const NO_USAGE = { input_tokens: 0, output_tokens: 0, calls: 0 } as const;

/** Asks every question about `window` (at most `concurrency` at once) and scores the replies. */
export function qaRecall(
  chat: ChatModel,
  window: ChatMessage[],
  items: QaItem[],
  concurrency = 4,
): Promise<QaRecall> {
  return qaRecallWith(items, async (item): Promise<AskOutcome> => {
    const result = await chat.complete({ messages: qaMessages(window, item.question), max_tokens: 64 });
    const records = [result.record];
    if (!result.ok) return { ok: false, error: result.error, usage: { ...NO_USAGE, calls: 1 }, records };
    const { prompt_tokens, completion_tokens } = result.usage;
    const usage = { input_tokens: prompt_tokens, output_tokens: completion_tokens, calls: 1 };
    return { ok: true, content: result.content, usage, records };
  }, concurrency);
}

/** Asks every question with `ask` (at most `concurrency` at once) and scores the replies (module rule). */
export async function qaRecallWith(
  items: QaItem[],
  ask: (item: QaItem) => Promise<AskOutcome>,
  concurrency = 4,
): Promise<QaRecall> {
  const limit = pLimit(concurrency);
  const results = await Promise.all(
    items.map((item) => limit(async () => ({ item, result: await ask(item) }))),
  );
  const out: QaRecall = {
    total: items.length,
    correct: 0,
    recall: null,
    facts_total: 0,
    facts_found: 0,
    by_type: {},
    not_in_context: 0,
    answers: [],
    usage: { ...NO_USAGE },
    records: [],
  };
  // Sums kept apart so that the mean is the plain mean of the questions' scores.
  const sums = new Map<object, number>();
  const addF1 = (group: { f1?: number; f1_questions?: number }, f1: number) => {
    const sum = (sums.get(group) ?? 0) + f1;
    sums.set(group, sum);
    group.f1_questions = (group.f1_questions ?? 0) + 1;
    group.f1 = sum / group.f1_questions;
  };
  for (const { item, result } of results) {
    out.records.push(...result.records);
    addUsage(out.usage, result.usage);
    const type = item.type !== undefined ? { type: item.type } : {};
    // A LoCoMo adversarial question expects one "fact": a decline.
    const adversarial = item.locomo?.category === 5;
    const factsTotal = adversarial ? 1 : item.facts.length;
    out.facts_total += factsTotal;
    const reply = result.ok ? result.content : null;
    const found = reply === null
      ? 0
      : adversarial
      ? (declines(reply) ? 1 : 0)
      : item.facts.filter((fact) => isCorrectReply(reply, fact)).length;
    const correct = factsTotal > 0 && found === factsTotal;
    if (correct) out.correct++;
    out.facts_found += found;
    if (reply?.trim() === NOT_IN_CONTEXT) out.not_in_context++;
    const f1 = item.locomo === undefined
      ? undefined
      : reply === null
      ? 0
      : locomoF1(reply, item.locomo.answer, item.locomo.category);
    out.answers.push({
      id: item.id,
      reply,
      correct,
      facts_found: found,
      facts_total: factsTotal,
      ...type,
      ...(f1 !== undefined ? { f1 } : {}),
      ...(result.ok ? {} : { error: result.error }),
    });
    if (f1 !== undefined) addF1(out, f1);
    if (item.type !== undefined) {
      const group = out.by_type[item.type] ??= { questions: 0, facts: 0, found: 0, recall: null };
      group.questions++;
      group.facts += factsTotal;
      group.found += found;
      group.recall = group.facts === 0 ? null : group.found / group.facts;
      if (f1 !== undefined) addF1(group, f1);
    }
  }
  out.recall = items.length === 0 || out.facts_total === 0 ? null : out.facts_found / out.facts_total;
  return out;
}
