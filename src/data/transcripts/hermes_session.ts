/**
 * Importer for Hermes Agent session files: `{name, description, model, source, scrubbing_passes, messages}`.
 * @module
 */
import { z } from "zod";
import { issueError } from "./types.ts";
import type { ImportedTranscript } from "./types.ts";
import { readMessageList } from "./openai.ts";

/** The descriptive fields of a Hermes session (all optional but `messages`). */
export const HermesSessionSchema = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  model: z.string().optional(),
  source: z.string().optional(),
  scrubbing_passes: z.array(z.string()).optional(),
  messages: z.array(z.unknown()),
});

/** Imports a parsed Hermes session object. */
export function importHermesSession(json: unknown, path: string): ImportedTranscript {
  const parsed = HermesSessionSchema.safeParse(json);
  if (!parsed.success) throw issueError(path, "", parsed.error);
  const { messages, ...meta } = parsed.data;
  return {
    format: "hermes-session",
    path,
    messages: readMessageList(messages, path),
    probes: [],
    meta: { name: meta.name, model: meta.model, source: meta.source },
    notes: [],
  };
}
