/**
 * Tool-call structure of a transcript: units that must stay together (an assistant message with tool calls
 * and all its results), the pairing check, repairing orphans a compaction left behind, and fitting whole
 * units into a budget (per-unit costs guess, the exact count of the whole window decides); the `truncate`
 * engine is that fit alone: the leading system messages and the newest whole units that fit.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "./engine.ts";

export { toolPairingProblem } from "../../core/tool_pairing.ts";

/** Consecutive messages an engine keeps or drops as a whole; `start` indexes its first in the input. */
export interface MessageUnit {
  start: number;
  messages: ChatMessage[];
}

/** Splits messages into units: an assistant message with tool calls and the results after it, or one message. */
export function splitUnits(messages: ChatMessage[]): MessageUnit[] {
  const units: MessageUnit[] = [];
  for (let i = 0; i < messages.length;) {
    const start = i++;
    if (messages[start].role === "assistant" && (messages[start].tool_calls?.length ?? 0) > 0) {
      while (i < messages.length && messages[i].role === "tool") i++;
    }
    units.push({ start, messages: messages.slice(start, i) });
  }
  return units;
}

/** The placeholder result given to a tool call whose result was removed. */
const MISSING_RESULT_PLACEHOLDER = "[tool result removed during compaction; see the summary above]";

/**
 * Repairs tool pairing after messages were removed: drops results that answer no call of the assistant
 * message before them (and duplicates), and gives each unanswered call a placeholder result.
 */
export function repairToolPairing(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: string[] = [];
  let answered = new Set<string>();
  const flush = () => {
    for (const id of pending.filter((id) => !answered.has(id))) {
      out.push({ role: "tool", tool_call_id: id, content: MISSING_RESULT_PLACEHOLDER });
    }
    pending = [];
    answered = new Set();
  };
  for (const message of messages) {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (id !== undefined && pending.includes(id) && !answered.has(id)) {
        answered.add(id);
        out.push(message);
      }
      continue;
    }
    flush();
    out.push(message);
    if (message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0) {
      pending = message.tool_calls!.map((call) => call.id);
    }
  }
  flush();
  return out;
}

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

/** The number of leading system messages. */
export function leadingSystemCount(messages: ChatMessage[]): number {
  let n = 0;
  while (n < messages.length && messages[n].role === "system") n++;
  return n;
}

/** An engine that keeps the system prompt and the newest whole units that fit the budget (exact counts). */
export function createTruncateEngine(): ContextEngine {
  return {
    kind: "built-in",
    name: "truncate",
    compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return Promise.resolve({ messages: [...messages] });
      const systemCount = leadingSystemCount(messages);
      const head = messages.slice(0, systemCount);
      const units = splitUnits(messages.slice(systemCount));
      const drop = unitsToDrop(head, units, opts.budgetTokens, opts.counter);
      return Promise.resolve({ messages: assembleWindow(head, units, drop) });
    },
  };
}
