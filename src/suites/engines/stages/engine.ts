/**
 * `engines-engine`: one engine's cold and warm compress calls, the measures of the cold window and its QA.
 * Always run afresh: latency is measured.
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../models/messages.ts";
import type { Needle, Probe } from "../../../data/transcripts/types.ts";
import { type EngineResult, runEngines, type RunEnginesOptions } from "../run.ts";
import { StoredTranscriptSchema } from "./transcript.ts";

/** What an engine body needs besides the transcript (`engineEnv`: only its names are in the params). */
export type EngineEnv =
  & Required<Pick<RunEnginesOptions, "chat" | "decision">>
  & Pick<
    RunEnginesOptions,
    "counter" | "timeoutMs" | "engineEnv" | "hermesDir" | "endpoint" | "maxOutputBytes"
  >;

/** An engine node's `result` output: everything measured except the window and the call records. */
export type MeasuredEngine = Omit<EngineResult, "window" | "records">;

const EngineParams = z.object({
  engine: z.string(),
  name: z.string().optional(),
  engine_env: z.array(z.string()).optional(),
  repeats: z.number().int(),
  budget: z.string(),
  budget_tokens: z.number().int(),
  context_length: z.number().int().min(1).optional(),
  conversation: z.object({ sample: z.number().int().min(0), sample_id: z.string().nullable() }).optional(),
  qa: z.boolean(),
  recovery_rounds: z.number().int().min(0).optional(),
  tokenizer: z.string(),
  chat_model: z.string(),
  decision_model: z.string(),
});

/** The `engines-engine` stage. */
export const enginesEngineStage = defineStage({
  name: "engines-engine",
  version: 7,
  doc: "One engine's cold and warm compress calls (timed), validation, measures and QA, and for an engine " +
    "with recall tools the +recovery arm (QA and probes again with the tools offered).",
  params: EngineParams,
  inputs: ["transcript"],
  outputs: {
    result: {
      schema: z.custom<MeasuredEngine>((v) => typeof v === "object" && v !== null && "engine" in v),
      doc: "the measured result (tokens, savings, needles, QA, latency, usage)",
    },
    window: {
      schema: z.array(ChatMessageSchema).nullable(),
      doc: "the cold output window (null on failure)",
    },
  },
  provider: true,
  reuseFrozen: false,
  async run({ params, inputs, env }: {
    params: z.infer<typeof EngineParams>;
    inputs: Record<string, unknown>;
    env: EngineEnv;
  }) {
    const transcript = StoredTranscriptSchema.parse(inputs.transcript);
    const [result] = await runEngines({
      messages: transcript.messages,
      needles: transcript.needles as unknown as Needle[],
      probes: transcript.probes as unknown as Probe[],
      engines: [{ name: params.name ?? params.engine, spec: params.engine }],
      repeats: params.repeats,
      ...env,
      budgetTokens: params.budget_tokens,
      budgetLabel: params.budget,
      ...(params.context_length !== undefined ? { contextLength: params.context_length } : {}),
      qa: params.qa,
      ...(params.recovery_rounds !== undefined ? { recoveryRounds: params.recovery_rounds } : {}),
    });
    const { window, records, ...rest } = result;
    const measured = params.conversation ? { ...rest, conversation: params.conversation } : rest;
    return {
      outputs: { result: measured, window },
      requests: records,
      status: result.status === "failed" ? "invalid" as const : "ok" as const,
      ...(result.reason ? { reason: result.reason } : {}),
    };
  },
});
