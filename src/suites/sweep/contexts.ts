/**
 * The sweep's answer inputs. Every context kind shares the original system prompt and task, the framing and
 * the follow-up question: `full` is the original history; `S` is the frozen summary; `S + Top N` is exactly
 * the same summary plus the first N units of the ranking, rendered in source order.
 *
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
    .map((unit, position) => ({
      id: unit.id,
      position,
      text: `[evidence ${unit.id}: part of the result of ${
        callOf(trajectory, unit.tool_call_id)
      }]\n${unit.text}`,
    }));
}

/** The task the summarizer and the decision model see: the original user task. */
export function sweepTask(trajectory: readonly ChatMessage[]): string {
  const task = trajectory.find((m) => m.role === "user");
  return task?.content ?? "";
}

/** The `full` context: the whole original history and the follow-up. */
export function fullSweepContext(trajectory: readonly ChatMessage[], followUp: string): ChatMessage[] {
  return [...trajectory, { role: "user", content: followUp }];
}

/** A summary context: head, the framed summary (and kept units, source order), the follow-up. */
export function summarySweepContext(
  trajectory: readonly ChatMessage[],
  summary: string,
  kept: readonly GenericUnit[],
  followUp: string,
): ChatMessage[] {
  const system = trajectory.find((m) => m.role === "system");
  const task = trajectory.find((m) => m.role === "user");
  if (!system || !task) throw new Error("a sweep trajectory needs a system prompt and a user task");
  const parts = [
    "Your earlier tool calls and their results were compacted to fit the context.",
    `Summary of the investigation so far:\n<summary>\n${summary}\n</summary>`,
  ];
  if (kept.length > 0) {
    parts.push(
      `Original tool output kept verbatim:\n<evidence>\n${
        [...kept].sort((a, b) => a.position - b.position).map((u) => u.text).join("\n\n")
      }\n</evidence>`,
    );
  }
  return [system, task, { role: "user", content: parts.join("\n\n") }, { role: "user", content: followUp }];
}

/**
 * A declared method's context (src/methods/registry.ts): the head, the compacted evidence (a summary when the
 * method has one, the kept units verbatim in source order), the follow-up. With a summary it is exactly
 * {@link summarySweepContext}.
 */
export function compactedSweepContext(
  trajectory: readonly ChatMessage[],
  summary: string,
  kept: readonly GenericUnit[],
  followUp: string,
): ChatMessage[] {
  if (summary !== "") return summarySweepContext(trajectory, summary, kept, followUp);
  const system = trajectory.find((m) => m.role === "system");
  const task = trajectory.find((m) => m.role === "user");
  if (!system || !task) throw new Error("a sweep trajectory needs a system prompt and a user task");
  const evidence = kept.length > 0
    ? `Original tool output kept verbatim:\n<evidence>\n${
      [...kept].sort((a, b) => a.position - b.position).map((u) => u.text).join("\n\n")
    }\n</evidence>`
    : "(No evidence was kept.)";
  return [system, task, {
    role: "user",
    content: `Your earlier tool calls and their results were compacted to fit the context.\n\n${evidence}`,
  }, { role: "user", content: followUp }];
}
