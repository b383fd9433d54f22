/**
 * Importer for LoCoMo exports: sessions become `Speaker: text` turns (A as user, B as assistant) and every QA
 * item a probe scored by LoCoMo's answer F1 (category 5 kept: a decline is correct).
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { type ImportedTranscript, type ImportOptions, issueError, type Probe } from "./types.ts";

const TurnSchema = z.object({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
});

const QaSchema = z.object({
  question: z.string(),
  answer: z.union([z.string(), z.number()]).optional(),
  adversarial_answer: z.union([z.string(), z.number()]).optional(),
  evidence: z.array(z.string()).optional(),
  category: z.union([z.number(), z.string()]).optional(),
});

const LocomoSampleSchema = z.object({
  sample_id: z.string().optional(),
  conversation: z.object({ speaker_a: z.string(), speaker_b: z.string() }).catchall(z.unknown()),
  qa: z.array(z.unknown()),
});

/** Imports a parsed LoCoMo export (one sample object, or an array of samples). */
export function importLocomo(json: unknown, path: string, options: ImportOptions = {}): ImportedTranscript {
  const sample = options.sample ?? 0;
  let value = json;
  let where = "";
  if (Array.isArray(json)) {
    if (!Number.isInteger(sample) || sample < 0 || sample >= json.length) {
      throw new UsageError(`${path}: sample ${sample} out of range (the file has ${json.length} samples)`);
    }
    value = json[sample];
    where = `[${sample}]`;
  }
  const parsed = LocomoSampleSchema.safeParse(value);
  if (!parsed.success) throw issueError(path, where, parsed.error);
  const { conversation, qa } = parsed.data;
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  if (sessions.length === 0) throw new UsageError(`${path}: ${where}conversation has no session_N lists`);
  const { speaker_a: speakerA, speaker_b: speakerB } = conversation;
  const messages: ChatMessage[] = [{
    role: "system",
    content: `A long-term conversation between ${speakerA} and ${speakerB} over ${sessions.length} sessions.`,
  }];
  const indexOf = new Map<string, number>();
  for (const number of sessions) {
    const field = `session_${number}`;
    const turns = z.array(TurnSchema).safeParse(conversation[field]);
    if (!turns.success) throw issueError(path, `${where}conversation.${field}`, turns.error);
    const date = conversation[`${field}_date_time`];
    turns.data.forEach((turn, i) => {
      if (turn.speaker !== speakerA && turn.speaker !== speakerB) {
        throw new UsageError(
          `${path}: ${where}conversation.${field}[${i}].speaker: '${turn.speaker}' is neither speaker_a nor speaker_b`,
        );
      }
      const prefix = i === 0 ? `[Session ${number}${typeof date === "string" ? `, ${date}` : ""}] ` : "";
      const image = turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : "";
      indexOf.set(turn.dia_id, messages.length);
      messages.push({
        role: turn.speaker === speakerA ? "user" : "assistant",
        content: `${prefix}${turn.speaker}: ${turn.text}${image}`,
      });
    });
  }
  const probes: Probe[] = [];
  let noAnswer = 0;
  let noEvidence = 0;
  let unknownIds = 0;
  qa.forEach((item, i) => {
    const parsedItem = QaSchema.safeParse(item);
    if (!parsedItem.success) throw issueError(path, `${where}qa[${i}]`, parsedItem.error);
    const { question, answer, adversarial_answer: adversarial, evidence, category } = parsedItem.data;
    const adversarialItem = String(category) === "5";
    if (!adversarialItem && (answer === undefined || String(answer).trim() === "")) return void noAnswer++;
    const indices = (evidence ?? []).map((id) => indexOf.get(id));
    unknownIds += indices.filter((index) => index === undefined).length;
    const known = indices.filter((index) => index !== undefined);
    if (known.length === 0) noEvidence++;
    probes.push({
      question,
      answer: answer === undefined ? "" : String(answer),
      evidence: known,
      ...(category === undefined ? {} : { category: String(category) }),
      ...(adversarial === undefined ? {} : { adversarial_answer: String(adversarial) }),
      scoring: "locomo",
    });
  });
  const notes: string[] = [];
  if (noAnswer > 0) notes.push(`${noAnswer} QA items without an answer skipped`);
  if (noEvidence > 0) notes.push(`${noEvidence} QA items without known evidence (kept)`);
  if (unknownIds > 0) notes.push(`${unknownIds} evidence ids not found in the conversation ignored`);
  return {
    format: "locomo",
    path,
    messages,
    probes,
    meta: {
      sample_id: parsed.data.sample_id,
      sample,
      sessions: sessions.length,
      samples: Array.isArray(json) ? json.length : 1,
    },
    notes,
  };
}
