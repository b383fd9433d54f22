/**
 * Fitting a window into a token budget by dropping the oldest units, with exact counts: per-unit costs
 * of the newest units give a first guess (the chat template is close to additive), then the real count of
 * the whole window decides, stepping one unit at a time.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { MessageUnit } from "./tool_groups.ts";

/** The window `head + units.slice(drop) + tail` flattened into messages. */
export function assembleWindow(
  head: ChatMessage[],
  units: MessageUnit[],
  drop: number,
  tail: ChatMessage[] = [],
): ChatMessage[] {
  return [...head, ...units.slice(drop).flatMap((unit) => unit.messages), ...tail];
}

/**
 * The smallest number of oldest units to drop so that `head + units.slice(drop) + tail` counts at most
 * `budget` tokens. When even dropping all but the last unit does not fit, returns `units.length - 1`
 * (the newest unit is always kept; the caller sees the overrun in the count). Returns 0 for no units.
 */
export function unitsToDrop(
  head: ChatMessage[],
  units: MessageUnit[],
  budget: number,
  counter: TokenCounter,
  tail: ChatMessage[] = [],
): number {
  if (units.length === 0) return 0;
  // First guess from per-unit costs (the chat template is close to additive), newest first, so only the
  // units that may be kept are counted.
  const empty = counter.countMessages([]);
  let remaining = budget - counter.countMessages([...head, ...tail]);
  let drop = units.length;
  while (drop > 0) {
    const cost = counter.countMessages(units[drop - 1].messages) - empty;
    if (cost > remaining && drop < units.length) break;
    remaining -= cost;
    drop--;
  }
  const fits = (k: number) => counter.countMessages(assembleWindow(head, units, k, tail)) <= budget;
  if (fits(drop)) {
    while (drop > 0 && fits(drop - 1)) drop--;
  } else {
    while (drop < units.length - 1 && !fits(drop + 1)) drop++;
    if (drop < units.length - 1) drop++;
  }
  return drop;
}
