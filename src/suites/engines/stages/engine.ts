/**
 * `engines-engine`: one engine's cold compress call and its warm repeats (timed alone), the validation and
 * measures of the cold window, and its QA probes. Always run afresh: latency is measured.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { ChatMessageSchema } from "../../../models/messages.ts";
import type { ChatModel, DecisionModel } from "../../../models/types.ts";
import type { LoopbackProxy } from "../../../models/loopback_proxy.ts";
import type { TokenCounter } from "../../../tokens/types.ts";
import type { Needle } from "../needles.ts";
import type { Probe } from "../../../data/transcripts/types.ts";
import { type EngineResult, runEngines } from "../run.ts";
import { StoredTranscriptSchema } from "./transcript.ts";

/** What an engine body needs besides the transcript: the models, the counter and the call time limit. */
export interface EngineEnv {
  chat: ChatModel;
  decision: DecisionModel;
  counter: TokenCounter;
  timeoutMs?: number;
  /** Variables passed to outside engines (`--engine-env`); their names are in the params, never values. */
  engineEnv?: Readonly<Record<string, string>>;
  /** Hermes Agent's directory for the `hermes` and `hermes-lcm` adapters. */
  hermesDir?: string;
  /** The loopback chat endpoint of outside engines (transport: its address and tokens are in no key). */
  endpoint?: LoopbackProxy;
  /** The most bytes of an outside engine's output (`--max-response-bytes`; transport: in no key). */
  maxOutputBytes?: number;
}

/** An engine node's `result` output: everything measured except the window and the call records. */
export type MeasuredEngine = Omit<EngineResult, "window" | "records">;

const EngineParams = z.object({
  engine: z.string(),
  name: z.string().optional(),
  engine_env: z.array(z.string()).optional(),
  repeats: z.number().int(),
  budget: z.string(),
  budget_tokens: z.number().int(),
  /** The host's context window told to the engine (`--context-length`); absent in a budget run. */
  context_length: z.number().int().min(1).optional(),
  /** The conversation of a multi-sample file (`--sample`) this row measures, recorded in the result. */
  conversation: z.object({ sample: z.number().int().min(0), sample_id: z.string().nullable() }).optional(),
  qa: z.boolean(),
  /** Tool rounds per question of the +recovery arm (absent: the default, 1). */
  recovery_rounds: z.number().int().min(0).optional(),
  tokenizer: z.string(),
  chat_model: z.string(),
  decision_model: z.string(),
});

/** The `engines-engine` stage. */
export const enginesEngineStage = defineStage({
  name: "engines-engine",
  // v3: the jev+summary engine splits as the seed (and hotpot) does, Jev within 40% of the space (was 80%).
  // v4: the +recovery arm (recovery_rounds param; recovery in the result) for engines with recall tools.
  // v5: outside engines as persistent workers timed inside (compress_ms, startup_ms, timing, worker in the
  // result; latency_ms is the round trip), and the context_length param (`--context-length`).
  // v6: LoCoMo questions scored by LoCoMo's answer F1 too (`f1` overall, per category and per answer);
  // `conversation` of a --sample run in the result.
  version: 6,
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
      counter: env.counter,
      chat: env.chat,
      decision: env.decision,
      budgetTokens: params.budget_tokens,
      budgetLabel: params.budget,
      ...(params.context_length !== undefined ? { contextLength: params.context_length } : {}),
      timeoutMs: env.timeoutMs,
      maxOutputBytes: env.maxOutputBytes,
      qa: params.qa,
      ...(params.recovery_rounds !== undefined ? { recoveryRounds: params.recovery_rounds } : {}),
      engineEnv: env.engineEnv,
      hermesDir: env.hermesDir,
      endpoint: env.endpoint,
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
