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
import type { EvidenceUnit as GenericUnit } from "../../../methods/evidence_unit.ts";
import { countPrompt } from "../../../tokens/budget.ts";
import { contextOutcome } from "../../answer_pipeline.ts";
import { StoredRankingSchema, StoredSummarySchema } from "../../stored.ts";
import { compactedSweepContext, fullSweepContext, summarySweepContext } from "../contexts.ts";
import { StoredWindowSchema } from "../../../methods/engine_method.ts";
import { contextNeeds, declaredMethod, type MethodArtifacts } from "../../../methods/registry.ts";
import { checkSweepEnv, type SweepStageEnv, SweepUnitsSchema } from "./trajectory.ts";

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
  inputs: ["units", "summary", "ranking", "window"],
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
    let ceilingBinds = kind !== "full";
    if (kind === "full") messages = fullSweepContext(fixture.trajectory, fixture.followUp);
    else if (inputs.window !== undefined) {
      // An engine method: its window, then the follow-up.
      const window = StoredWindowSchema.parse(inputs.window);
      if (!window.ok || window.messages === null) return fail(window.reason ?? "engine failed");
      messages = [...window.messages, { role: "user", content: fixture.followUp }];
    } else {
      // S is the registry's `summary`, S + Top N its `summary+top` with n = N (the sweep's protocol); any other
      // kind is a declared method by name (src/methods/registry.ts). All build over the sweep's units.
      const method = declaredMethod(
        kind === "S" ? "summary" : kind.startsWith("S+Top") ? "summary+top" : kind,
      );
      if (!method) throw new Error(`sweep-context: no method ${kind} is declared`);
      ceilingBinds = method.ceilingBinds;
      const needs = contextNeeds(method);
      const artifacts: MethodArtifacts = {};
      if (needs.includes("summary")) {
        const summary = StoredSummarySchema.parse(inputs.summary ?? { ok: false, text: null });
        if (!summary.ok || summary.text === null) return fail(`summary invalid: ${summary.reason}`);
        artifacts.summary = { text: summary.text, kept: [] };
      }
      if (needs.includes("ranking") && (n > 0 || !kind.startsWith("S+Top"))) {
        const ranking = StoredRankingSchema.parse(inputs.ranking ?? { ok: false, order: [] });
        if (!ranking.ok) return fail(`ranking failed: ${ranking.error}`);
        artifacts.order = ranking.order;
      }
      // With a summary, exactly the S framing (summarySweepContext); without, the same framing minus S.
      const render = needs.includes("summary") ? summarySweepContext : compactedSweepContext;
      const frame = {
        counter,
        units,
        render: (chosen: readonly GenericUnit[], text: string) =>
          render(fixture.trajectory, text, chosen, fixture.followUp),
        limit: capLimit,
      };
      const evidence = method.evidence(frame, artifacts, kind.startsWith("S+Top") ? { n } : {});
      if (evidence === null) messages = fullSweepContext(fixture.trajectory, fixture.followUp);
      else {
        // Kept ids in rank order when a ranking chose them, else in source order.
        const ids = new Set(evidence.kept.map((u) => u.id));
        kept = artifacts.order ? artifacts.order.filter((id) => ids.has(id)) : evidence.kept.map((u) => u.id);
        messages = frame.render(evidence.kept, evidence.summary);
      }
    }
    return contextOutcome(messages, countPrompt(counter, messages), capLimit, ceilingBinds, {
      node: key,
      kept,
    });
  },
});
