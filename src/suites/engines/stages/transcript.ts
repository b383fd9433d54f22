/**
 * `engines-transcript`: the transcript every engine compresses, generated with planted needles or imported in
 * the recorded format; a `probes` input (Hermes' `--probes` file) replaces its probes.
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../models/messages.ts";
import { importTranscriptText } from "../../../data/transcripts/import.ts";
import { TRANSCRIPT_FORMATS } from "../../../data/transcripts/types.ts";
import { generateTranscript, transcriptHash } from "../generate.ts";
import { parseHermesProbes } from "../../../data/transcripts/hermes_probes.ts";

/** A transcript node's `transcript` output. */
export const StoredTranscriptSchema = z.object({
  messages: z.array(ChatMessageSchema),
  needles: z.array(z.object({ id: z.string() }).loose()),
  probes: z.array(z.object({ question: z.string(), answer: z.string() }).loose()),
  hash: z.string(),
});

const Params = z.union([
  z.object({ source: z.literal("generated"), params: z.record(z.string(), z.unknown()) }),
  z.object({
    source: z.literal("imported"),
    format: z.enum(TRANSCRIPT_FORMATS),
    /** `--sample` (absent: the first). */
    sample: z.number().int().min(0).optional(),
  }),
]);

/** The `engines-transcript` stage. */
export const enginesTranscriptStage = defineStage({
  name: "engines-transcript",
  version: 5,
  doc: "The transcript every engine compresses: generated with planted needles (early region by default), " +
    "or imported (format recorded; the needles a generated file carries are kept); a probes file replaces its probes.",
  params: Params,
  inputs: ["file", "probes"],
  textInputs: ["file", "probes"],
  outputs: { transcript: { schema: StoredTranscriptSchema, doc: "messages, needles, probes and the hash" } },
  provider: false,
  run({ params, inputs }: { params: z.infer<typeof Params>; inputs: Record<string, unknown> }) {
    const probeFile = inputs.probes === undefined
      ? undefined
      : parseHermesProbes(z.string().parse(inputs.probes), "probes");
    const made = params.source === "generated"
      ? { ...generateTranscript(params.params), probes: [] }
      : importTranscriptText(
        z.string().parse(inputs.file),
        "transcript",
        params.format,
        params.sample !== undefined ? { sample: params.sample } : {},
      );
    const transcript = {
      messages: made.messages,
      needles: made.needles ?? [],
      probes: probeFile ?? made.probes,
      hash: transcriptHash(made.messages),
    };
    return Promise.resolve({ outputs: { transcript } });
  },
});
