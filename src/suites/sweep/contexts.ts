/**
 * The sweep's evidence units (tool results cut losslessly) and answer inputs: `full` is the original history;
 * `S` the frozen summary; `S + Top N` the same summary plus the ranking's first N units in source order.
 * @module
 */
import type { EvidenceUnit as GenericUnit } from "../../methods/evidence_unit.ts";
import type { ChatMessage } from "../../models/messages.ts";
import type { UnitBoundary } from "./case_format.ts";

/** One piece of original evidence: its boundary, its tool call id and `content.slice(start, end)`. */
export interface EvidenceUnit extends UnitBoundary {
  tool_call_id: string;
  text: string;
}

/**
 * Cuts the tool results of `messages` at `boundaries`. Throws an Error naming the unit unless a boundary
 * points at a tool message and each result's units tile it exactly (no gap, overlap or short stop).
 */

export function splitUnits(messages: ChatMessage[], boundaries: UnitBoundary[]): EvidenceUnit[] {
  const units: EvidenceUnit[] = [];
  const covered = new Map<number, number>();
  for (const boundary of boundaries) {
    const message = messages[boundary.message_index];
    if (message?.role !== "tool" || typeof message.content !== "string" || !message.tool_call_id) {
      throw new Error(`unit ${boundary.id}: message ${boundary.message_index} is not a tool result`);
    }
    const expectedStart = covered.get(boundary.message_index) ?? 0;
    if (boundary.start !== expectedStart || boundary.end <= boundary.start) {
      throw new Error(
        `unit ${boundary.id}: starts at ${boundary.start}, expected ${expectedStart} (units must tile the tool result)`,
      );
    }
    if (boundary.end > message.content.length) {
      throw new Error(
        `unit ${boundary.id}: ends at ${boundary.end}, past the tool result (${message.content.length} chars)`,
      );
    }
    covered.set(boundary.message_index, boundary.end);
    units.push({
      id: boundary.id,
      message_index: boundary.message_index,
      tool_call_id: message.tool_call_id,
      start: boundary.start,
      end: boundary.end,
      text: message.content.slice(boundary.start, boundary.end),
    });
  }
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    const length = message.content?.length ?? 0;
    if ((covered.get(index) ?? 0) !== length) {
      throw new Error(`tool result ${index}: units cover ${covered.get(index) ?? 0} of ${length} chars`);
    }
  });
  return units;
}

/** The context kinds of one generation, in report order: full, S, S+Top1…. */
export function contextKinds(topN: readonly number[]): string[] {
  return ["full", "S", ...topN.map((n) => `S+Top${n}`)];
}

/** The units as the methods see them: provenance header plus the exact original text, in source order. */
export function renderedUnits(
  trajectory: readonly ChatMessage[],
  units: readonly EvidenceUnit[],
): GenericUnit[] {
  const calls = trajectory.flatMap((message) => message.tool_calls ?? []);
  return [...units]
    .sort((a, b) => a.message_index - b.message_index || a.start - b.start)
    .map((unit, position) => {
      const call = calls.find((c) => c.id === unit.tool_call_id);
      const what = call ? `${call.function.name} ${call.function.arguments}` : "unknown call";
      return {
        id: unit.id,
        position,
        text: `[evidence ${unit.id}: part of the result of ${what}]\n${unit.text}`,
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

/** The system prompt and the task, the compacted history `content`, the follow-up. */
function framed(trajectory: readonly ChatMessage[], content: string, followUp: string): ChatMessage[] {
  const system = trajectory.find((m) => m.role === "system");
  const task = trajectory.find((m) => m.role === "user");
  if (!system || !task) throw new Error("a sweep trajectory needs a system prompt and a user task");
  return [system, task, { role: "user", content }, { role: "user", content: followUp }];
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
  return framed(trajectory, parts.join("\n\n"), followUp);
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
  return framed(trajectory, `${COMPACTED}\n\n${body}`, followUp);
}
