/**
 * The sweep's answer inputs: `full` is the original history; `S` the frozen summary; `S + Top N` the same
 * summary plus the ranking's first N units in source order; each with the head and the follow-up.
 * @module
 */
import type { EvidenceUnit as GenericUnit } from "../../methods/evidence_unit.ts";
import type { ChatMessage } from "../../models/messages.ts";
import type { EvidenceUnit } from "./units.ts";

/** The context kinds of one generation, in report order: full, S, S+Top1…. */
export function contextKinds(topN: readonly number[]): string[] {
  return ["full", "S", ...topN.map((n) => `S+Top${n}`)];
}

/** The tool name and arguments of the call a unit's tool result answers. */
function callOf(trajectory: readonly ChatMessage[], toolCallId: string): string {
  for (const message of trajectory) {
    const call = message.tool_calls?.find((c) => c.id === toolCallId);
    if (call) return `${call.function.name} ${call.function.arguments}`;
  }
  return "unknown call";
}

/** The units as the methods see them: provenance header plus the exact original text, in source order. */
export function renderedUnits(
  trajectory: readonly ChatMessage[],
  units: readonly EvidenceUnit[],
): GenericUnit[] {
  return [...units]
    .sort((a, b) => a.message_index - b.message_index || a.start - b.start)
    .map((unit, position) => {
      const call = callOf(trajectory, unit.tool_call_id);
      return {
        id: unit.id,
        position,
        text: `[evidence ${unit.id}: part of the result of ${call}]\n${unit.text}`,
      };
    });
}

/** The task the summarizer and the decision model see: the original user task. */
export function sweepTask(trajectory: readonly ChatMessage[]): string {
  return trajectory.find((m) => m.role === "user")?.content ?? "";
}

/** The `full` context: the whole original history and the follow-up. */
export function fullSweepContext(trajectory: readonly ChatMessage[], followUp: string): ChatMessage[] {
  return [...trajectory, { role: "user", content: followUp }];
}

const COMPACTED = "Your earlier tool calls and their results were compacted to fit the context.";

function head(trajectory: readonly ChatMessage[]): ChatMessage[] {
  const system = trajectory.find((m) => m.role === "system");
  const task = trajectory.find((m) => m.role === "user");
  if (!system || !task) throw new Error("a sweep trajectory needs a system prompt and a user task");
  return [system, task];
}

function evidence(kept: readonly GenericUnit[]): string {
  const texts = [...kept].sort((a, b) => a.position - b.position).map((u) => u.text);
  return `Original tool output kept verbatim:\n<evidence>\n${texts.join("\n\n")}\n</evidence>`;
}

/** A summary context: head, the framed summary (and kept units, source order), the follow-up. */
export function summarySweepContext(
  trajectory: readonly ChatMessage[],
  summary: string,
  kept: readonly GenericUnit[],
  followUp: string,
): ChatMessage[] {
  const parts = [COMPACTED, `Summary of the investigation so far:\n<summary>\n${summary}\n</summary>`];
  if (kept.length > 0) parts.push(evidence(kept));
  return [...head(trajectory), { role: "user", content: parts.join("\n\n") }, {
    role: "user",
    content: followUp,
  }];
}

/** A declared method's context: with a summary exactly {@link summarySweepContext}, else the kept units. */
export function compactedSweepContext(
  trajectory: readonly ChatMessage[],
  summary: string,
  kept: readonly GenericUnit[],
  followUp: string,
): ChatMessage[] {
  if (summary !== "") return summarySweepContext(trajectory, summary, kept, followUp);
  const body = kept.length > 0 ? evidence(kept) : "(No evidence was kept.)";
  return [...head(trajectory), { role: "user", content: `${COMPACTED}\n\n${body}` }, {
    role: "user",
    content: followUp,
  }];
}
