/**
 * `engines-transcript`: the transcript every engine compresses — generated from SHA-256-derived text with
 * planted needles (early-region depths by default), or imported from the run's `transcript` source in the
 * recorded format (with the needles the file carries: a `{messages, needles}` file written by
 * `engines generate` keeps them). A `probes` input (the `--probes` file of Hermes' compression eval) replaces its probes.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../models/messages.ts";
import { importTranscriptText } from "../../../data/transcripts/import.ts";
import { TRANSCRIPT_FORMATS } from "../../../data/transcripts/types.ts";
import { generateTranscript } from "../generate.ts";
import { parseHermesProbes } from "../../../data/transcripts/hermes_probes.ts";
import { transcriptHash } from "../transcript_hash.ts";

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
    /** Which transcript of a multi-sample file (`--sample`; absent: the first). */
    sample: z.number().int().min(0).optional(),
  }),
]);

/** The `engines-transcript` stage. */
export const enginesTranscriptStage = defineStage({
  name: "engines-transcript",
  // v5: every LoCoMo QA item is kept as a probe scored by LoCoMo's F1 (category 5 and items without known
  // evidence included); `sample` picks a conversation of a multi-sample file.
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
    if (params.source === "generated") {
      const generated = generateTranscript(params.params);
      return Promise.resolve({
        outputs: {
          transcript: {
            messages: generated.messages,
            needles: generated.needles,
            probes: probeFile?.probes ?? [],
            hash: generated.hash,
          },
        },
      });
    }
    const imported = importTranscriptText(
      z.string().parse(inputs.file),
      "transcript",
      params.format,
      params.sample !== undefined ? { sample: params.sample } : {},
    );
    return Promise.resolve({
      outputs: {
        transcript: {
          messages: imported.messages,
          needles: imported.needles ?? [],
          probes: probeFile?.probes ?? imported.probes,
          hash: transcriptHash(imported.messages),
        },
      },
    });
  },
});
