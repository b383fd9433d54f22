/**
 * Evidence units: the tool results of a trajectory cut losslessly into the oracle's stable pieces.
 * @module
 */
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
