/**
 * Reading a model's answer: parse leniently (fenced JSON, the whole text, any embedded object), score strictly
 * (ids are kept exactly as written: json_ids.ts).
 *
 * @module
 */
import { z } from "zod";
import type { HotpotPrediction } from "./scoring.ts";
import { parseJsonKeepingDecimalIds } from "./json_ids.ts";

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
