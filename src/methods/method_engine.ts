/**
 * A declared method (registry.ts) as a context engine, so one declaration runs in hotpot, sweep and engines.
 * Its evidence units are the transcript's messages after the head (system prompt and first user message),
 * a tool call with its results being one unit; it ranks and summarizes them as the answer suites do.
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import { usageOfRecords } from "../core/usage.ts";
import type { ChatMessage } from "../models/messages.ts";
import { rank } from "../models/rank.ts";
import type { CallRecord } from "../models/types.ts";
import { type ContextEngine, type EngineDeps, EngineError } from "./engines/engine.ts";
import { renderTranscript, summaryMessage } from "./engines/hermes_like.ts";
import { leadingSystemCount, splitUnits } from "./engines/tool_groups.ts";
import { type EvidenceUnit, joinUnits } from "./evidence_unit.ts";
import type { EvidenceFrame, MethodArtifacts, MethodDeclaration, MethodParams } from "./registry.ts";
import { summarizeWithin } from "./summarize.ts";

/** The label of the message that carries a method's summary into the window. */
const SUMMARY_LABEL = "Summary of messages removed from the context";

/**
 * The engine running `method` (with `params`, default its own) over a transcript: ranking by `deps.decision`
 * and summaries by `deps.chat` where it needs them (a missing one is a {@link UsageError}); the window is the
 * head, the summary, then the kept units.
 *
 * @example
 * ```ts
 * import { declaredMethod } from "./registry.ts";
 * import { createMethodEngine } from "./method_engine.ts";
 * const full = createMethodEngine(declaredMethod("full")!, {});
 * ```
 */
export function createMethodEngine(
  method: MethodDeclaration,
  deps: Pick<EngineDeps, "chat" | "decision">,
  params: MethodParams = method.params,
): ContextEngine {
  const { chat, decision } = deps;
  if (method.needs.includes("ranking") && !decision) {
    throw new UsageError(`engine '${method.name}' needs a decision model`);
  }
  if (method.needs.includes("summary") && !chat) {
    throw new UsageError(`engine '${method.name}' needs a chat model`);
  }
  return {
    kind: "built-in",
    name: method.name,
    async compress(messages, { counter, budgetTokens, currentTokens }) {
      const systems = leadingSystemCount(messages);
      const headEnd = systems + (messages[systems]?.role === "user" ? 1 : 0);
      const groups = splitUnits(messages.slice(headEnd));
      // Nothing to compact (it fits, or only the head is there): the window is the input.
      if (currentTokens <= budgetTokens || groups.length === 0) return { messages: [...messages] };
      const units: EvidenceUnit[] = groups.map((g, i) => ({
        id: `m${headEnd + g.start}`,
        position: i,
        text: renderTranscript(g.messages),
      }));
      const render = (kept: readonly EvidenceUnit[], summary: string): ChatMessage[] => [
        ...messages.slice(0, headEnd),
        ...(summary === "" ? [] : [summaryMessage(summary, SUMMARY_LABEL)]),
        ...kept.flatMap((u) => groups[u.position].messages),
      ];
      const frame: EvidenceFrame = Object.freeze({ counter, units, render, limit: budgetTokens });
      const users = messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
      const task = [...new Set([users[0] ?? "", users.at(-1) ?? ""])].join("\n\n");
      const records: CallRecord[] = [];
      const artifacts: MethodArtifacts = {};
      if (method.needs.includes("ranking")) {
        const ranking = await rank(decision!, units, task);
        records.push(...ranking.records);
        if (!ranking.ok) throw new EngineError(`decision model call failed: ${ranking.error}`, { records });
        artifacts.order = ranking.order;
      }
      if (method.needs.includes("summary")) {
        const kept = method.retain?.(frame, artifacts.order, params) ?? [];
        const keptIds = new Set(kept.map((u) => u.id));
        const outcome = await summarizeWithin({
          chat: chat!,
          task,
          evidence: joinUnits(units.filter((u) => !keptIds.has(u.id))),
          retained: kept.length > 0 ? joinUnits(kept) : undefined,
          space: budgetTokens - counter.countMessages(render(kept, "")),
          promptTokens: (summary) => counter.countMessages(render(kept, summary)),
          limit: budgetTokens,
        });
        records.push(...outcome.records);
        if (!outcome.ok) throw new EngineError(outcome.reason, { records });
        artifacts.summary = { text: outcome.summary, kept: [...keptIds] };
      }
      const evidence = method.evidence(frame, artifacts, params);
      const window = evidence === null ? [...messages] : render(evidence.kept, evidence.summary);
      return { messages: window, usage: usageOfRecords(records), records };
    },
  };
}
