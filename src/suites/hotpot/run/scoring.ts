/**
 * HotpotQA scoring with the semantics of the official `hotpot_evaluate_v1.py` (normalization, answer EM/F1,
 * supporting-fact and joint metrics), with one deliberate difference: a supporting-fact pair whose id is not an
 * integer (a boolean, 1.5, "3", or `3.0`/`3e0` kept as its source text by the JSON parse here) earns no
 * credit. A model's answer is parsed leniently (fenced JSON, the whole text, any embedded object), scored strictly.
 *
 * @module
 */
import { normalizeAnswer, pySplit } from "../../scoring.ts";
import { z } from "zod";
import { MAX_JSON_DEPTH, scanJson } from "../../../core/json_read.ts";

export { normalizeAnswer } from "../../scoring.ts";

/** The official metric names, in the official order. */
export const METRIC_NAMES = [
  "em",
  "f1",
  "prec",
  "recall",
  "sp_em",
  "sp_f1",
  "sp_prec",
  "sp_recall",
  "joint_em",
  "joint_f1",
  "joint_prec",
  "joint_recall",
] as const;

/** The official metrics of one question or an average. */
export type HotpotMetrics = Record<(typeof METRIC_NAMES)[number], number>;

/** Answer exact match after normalization (1 or 0). */
export function answerExactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

/** Answer token F1, precision and recall with the yes/no/noanswer rule. */
export function answerF1(prediction: string, gold: string): { f1: number; prec: number; recall: number } {
  const p = normalizeAnswer(prediction);
  const g = normalizeAnswer(gold);
  const zero = { f1: 0, prec: 0, recall: 0 };
  const special = ["yes", "no", "noanswer"];
  if (special.includes(p) && p !== g) return zero;
  if (special.includes(g) && p !== g) return zero;
  const pt = pySplit(p);
  const gt = pySplit(g);
  const counts = new Map<string, number>();
  for (const t of gt) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pt) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return zero;
  const prec = (1.0 * same) / pt.length;
  const recall = (1.0 * same) / gt.length;
  return { f1: (2 * prec * recall) / (prec + recall), prec, recall };
}

/** True for a `[title, id]` pair with a string title and an integer id (not a boolean, decimal or string). */
export function isWellFormedFact(pair: unknown): pair is [string, number] {
  return Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" &&
    typeof pair[1] === "number" && Number.isInteger(pair[1]);
}

/**
 * Supporting-fact EM, F1, precision and recall of predicted pairs (any JSON values; malformed ones count
 * as wrong predictions) against gold facts, both taken as sets.
 */
export function supportingFactScores(
  predicted: readonly unknown[],
  gold: readonly { title: string; sent_id: number }[],
): { em: number; f1: number; prec: number; recall: number } {
  const goldKeys = new Set(gold.map((f) => JSON.stringify([f.title, f.sent_id])));
  const predKeys = new Set<string>();
  for (const pair of predicted) {
    predKeys.add(isWellFormedFact(pair) ? JSON.stringify(pair) : `malformed:${JSON.stringify(pair)}`);
  }
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const k of predKeys) {
    if (goldKeys.has(k)) tp++;
    else fp++;
  }
  for (const k of goldKeys) if (!predKeys.has(k)) fn++;
  const prec = tp + fp > 0 ? (1.0 * tp) / (tp + fp) : 0.0;
  const recall = tp + fn > 0 ? (1.0 * tp) / (tp + fn) : 0.0;
  const f1 = prec + recall > 0 ? (2 * prec * recall) / (prec + recall) : 0.0;
  return { em: fp + fn === 0 ? 1.0 : 0.0, f1, prec, recall };
}

/** A prediction for one question; a missing part scores zero (and so does the joint). */
export interface HotpotPrediction {
  answer?: string;
  sp?: readonly unknown[];
}

/** The gold labels one question is scored against. */
export interface HotpotGold {
  answer: string;
  supporting_facts: readonly { title: string; sent_id: number }[];
}

/** All official metrics of one question. */
export function scoreQuestion(prediction: HotpotPrediction, gold: HotpotGold): HotpotMetrics {
  const m = Object.fromEntries(METRIC_NAMES.map((k) => [k, 0])) as HotpotMetrics;
  if (prediction.answer !== undefined) {
    m.em = answerExactMatch(prediction.answer, gold.answer);
    Object.assign(m, answerF1(prediction.answer, gold.answer));
  }
  if (prediction.sp !== undefined) {
    const sp = supportingFactScores(prediction.sp, gold.supporting_facts);
    m.sp_em = sp.em;
    m.sp_f1 = sp.f1;
    m.sp_prec = sp.prec;
    m.sp_recall = sp.recall;
  }
  if (prediction.answer !== undefined && prediction.sp !== undefined) {
    m.joint_prec = m.prec * m.sp_prec;
    m.joint_recall = m.recall * m.sp_recall;
    m.joint_f1 = m.joint_prec + m.joint_recall > 0
      ? (2 * m.joint_prec * m.joint_recall) / (m.joint_prec + m.joint_recall)
      : 0.0;
    m.joint_em = m.em * m.sp_em;
  }
  return m;
}

/** The mean of each metric over questions, summed in the given order then divided (as the script does). */
export function averageMetrics(perQuestion: readonly HotpotMetrics[]): HotpotMetrics {
  const sum = Object.fromEntries(METRIC_NAMES.map((k) => [k, 0])) as HotpotMetrics;
  for (const m of perQuestion) for (const k of METRIC_NAMES) sum[k] += m[k];
  for (const k of METRIC_NAMES) sum[k] = perQuestion.length === 0 ? 0 : sum[k] / perQuestion.length;
  return sum;
}

/** The reviver context of ES2025 JSON.parse source text access (supported by V8, hence Deno). */
interface ReviverContext {
  source?: string;
}

/** `JSON.parse(text)`, except that a non-integer-literal number in an array stays its source text. */
export function parseJsonKeepingDecimalIds(text: string): unknown {
  scanJson(text, MAX_JSON_DEPTH, true); // before the reviver, which recurses
  return JSON.parse(
    text,
    function (this: unknown, _key: string, value: unknown, context?: ReviverContext) {
      if (typeof value === "number" && Array.isArray(this) && context?.source !== undefined) {
        if (/[.eE]/.test(context.source)) return context.source;
      }
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        Object.setPrototypeOf(value, null);
      }
      return value;
    } as (key: string, value: unknown) => unknown,
  );
}

/** A parsed model answer. */
export type ParsedAnswer =
  | { ok: true; answer: string; supporting_facts: unknown[] }
  | { ok: false; error: string };

const AnswerObjectSchema = z.object({
  answer: z.union([z.string(), z.number().transform(String)]),
  // Parsed leniently: anything but a list (null, an object…) is no supporting facts, and the answer still counts.
  supporting_facts: z.unknown().optional(),
});

/** Every balanced `{...}` span of `text` (string-aware), in order of their start. */
function objectCandidates(text: string): string[] {
  const out: string[] = [];
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        out.push(text.slice(start, i + 1));
        break;
      }
    }
  }
  return out;
}

/** Parses a model answer: fenced JSON first, then the whole text, then any embedded JSON object. */
export function parseModelAnswer(text: string): ParsedAnswer {
  const fenced = [...text.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```/gi)].map((m) => m[1]);
  for (const candidate of [...fenced, text, ...objectCandidates(text)]) {
    let json: unknown;
    try {
      json = parseJsonKeepingDecimalIds(candidate.trim());
    } catch (error) {
      if (error instanceof SyntaxError) continue;
      throw error;
    }
    const parsed = AnswerObjectSchema.safeParse(json);
    if (parsed.success) {
      const facts = parsed.data.supporting_facts;
      return { ok: true, answer: parsed.data.answer, supporting_facts: Array.isArray(facts) ? facts : [] };
    }
  }
  return { ok: false, error: "no JSON object with an 'answer' field found in the model's answer" };
}

/** The prediction to score for a model answer; an unparsable answer predicts nothing (scores zero). */
export function predictionFromModelAnswer(text: string): HotpotPrediction {
  const parsed = parseModelAnswer(text);
  return parsed.ok ? { answer: parsed.answer, sp: parsed.supporting_facts } : { answer: "", sp: [] };
}
