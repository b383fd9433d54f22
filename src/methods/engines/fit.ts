/**
 * Fitting a window into a token budget by dropping the oldest units: per-unit costs give a first guess, the
 * exact count of the whole window decides.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { MessageUnit } from "./tool_groups.ts";

/** The window `head + units.slice(drop)` flattened into messages. */
export function assembleWindow(head: ChatMessage[], units: MessageUnit[], drop: number): ChatMessage[] {
  return [...head, ...units.slice(drop).flatMap((unit) => unit.messages)];
}

/**
 * The fewest oldest units to drop so that `head + units.slice(drop)` counts at most `budget` tokens; the
 * newest unit is always kept (the caller sees an overrun in the count).
 */
export function unitsToDrop(
  head: ChatMessage[],
  units: MessageUnit[],
  budget: number,
  counter: TokenCounter,
): number {
  if (units.length === 0) return 0;
  // First guess from per-unit costs, newest first (the chat template is close to additive).
  const empty = counter.countMessages([]);
  let remaining = budget - counter.countMessages(head);
  let drop = units.length;
  while (drop > 0) {
    const cost = counter.countMessages(units[drop - 1].messages) - empty;
    if (cost > remaining && drop < units.length) break;
    remaining -= cost;
    drop--;
  }
  const fits = (k: number) => counter.countMessages(assembleWindow(head, units, k)) <= budget;
  if (fits(drop)) {
    while (drop > 0 && fits(drop - 1)) drop--;
  } else {
    while (drop < units.length - 1 && !fits(drop + 1)) drop++;
    if (drop < units.length - 1) drop++;
  }
  return drop;
}
