/**
 * `sweep-context`: renders `full`, `S` or `S + Top N` (exactly the generation's S plus the first N ranked units
 * in source order) and counts it exactly. An over-budget context is recorded as invalid, never shrunk and
 * never sent.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import { overBudgetReason, withinCeiling } from "../../over_budget.ts";
import { StoredRankingSchema, StoredSummarySchema } from "../../stored.ts";
import { fullSweepContext, summarySweepContext } from "../contexts.ts";
import { checkSweepEnv, type SweepStageEnv } from "./env.ts";
import { SweepUnitsSchema } from "./trajectory.ts";

/** A sweep context node's `info` output (counts null when no input was rendered). */
export const SweepContextInfoSchema = z.object({
  node: z.string(),
  tokens: z.number().int().nullable(),
  within_cap: z.boolean().nullable(),
  kept: z.array(z.string()),
});

const Params = z.object({
  kind: z.string(),
  top_n: z.number().int(),
  input_cap: z.number().int(),
  reserve: z.number().int(),
  tokenizer: z.string(),
  fixture: z.string(),
});

/** The `sweep-context` stage. */
export const sweepContextStage = defineStage({
  name: "sweep-context",
  version: 2,
  doc:
    "One context kind (full, S, S+TopN) rendered and counted exactly; over budget is recorded, never sent.",
  params: Params,
  inputs: ["units", "summary", "ranking"],
  outputs: {
    messages: {
      schema: z.array(ChatMessageSchema).nullable(),
      doc: "the answer input (null when not rendered)",
    },
    info: { schema: SweepContextInfoSchema, doc: "exact token count, within the ceiling, kept unit ids" },
  },
  provider: false,
  run({ params, inputs, key, env }: {
    params: z.infer<typeof Params>;
    inputs: Record<string, unknown>;
    key: string;
    env: SweepStageEnv;
  }) {
    checkSweepEnv(env, params);
    const { fixture, counter } = env;
    const units = SweepUnitsSchema.parse(inputs.units);
    const capLimit = params.input_cap - params.reserve;
    const kind = params.kind;
    const n = params.top_n;
    const fail = (reason: string) =>
      Promise.resolve({
        outputs: { messages: null, info: { node: key, tokens: null, within_cap: null, kept: [] } },
        status: "invalid" as const,
        reason,
      });
    let messages: ChatMessage[];
    let kept: string[] = [];
    if (kind === "full") messages = fullSweepContext(fixture.trajectory, fixture.followUp);
    else {
      const summary = StoredSummarySchema.parse(inputs.summary ?? { ok: false, text: null });
      const ranking = n > 0
        ? StoredRankingSchema.parse(inputs.ranking ?? { ok: false, order: [] })
        : undefined;
      if (!summary.ok || summary.text === null) return fail(`summary invalid: ${summary.reason}`);
      if (n > 0 && !ranking?.ok) return fail(`ranking failed: ${ranking?.error}`);
      kept = n > 0 ? ranking!.order.slice(0, n) : [];
      const keptUnits = units.filter((u) => kept.includes(u.id));
      messages = summarySweepContext(fixture.trajectory, summary.text, keptUnits, fixture.followUp);
    }
    const tokens = countPrompt(counter, messages);
    const info = { node: key, tokens, within_cap: withinCeiling(tokens, capLimit), kept };
    if (kind !== "full" && !withinCeiling(tokens, capLimit)) {
      return Promise.resolve({
        outputs: { messages, info },
        status: "invalid" as const,
        reason: overBudgetReason(tokens, capLimit),
      });
    }
    return Promise.resolve({ outputs: { messages, info } });
  },
});
