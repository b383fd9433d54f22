/**
 * The `hermes-like` engine: a REIMPLEMENTATION of Hermes Agent's compressor idea (`hermes` runs the real one):
 * protect head and tail, clear old tool outputs, summarize the middle in a template, repair orphaned tool pairs.
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel } from "../../models/types.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "./engine.ts";
import {
  fitTextToBudget,
  STRUCTURED_SUMMARY_TEMPLATE,
  summarizeMessages,
  summaryMessage,
} from "./summarize.ts";
import {
  assembleWindow,
  type MessageUnit,
  repairToolPairing,
  splitUnits,
  unitsToDrop,
} from "./tool_groups.ts";
import { leadingSystemCount } from "./truncate.ts";

/** Tool outputs longer than this (characters) outside the protected tail are cleared. */
const CLEAR_TOOL_OUTPUT_OVER_CHARS = 200;
/** The text that replaces a cleared tool output. */
export const CLEARED_TOOL_OUTPUT = "[Old tool output cleared to save context space]";
/** Share of the budget the protected tail may take. */
const TAIL_SHARE = 0.4;
/** The least room (tokens) left for the summary; the tail shrinks to make it. */
const MIN_SUMMARY_TOKENS = 128;

/** The messages of `units`, tool outputs over {@link CLEAR_TOOL_OUTPUT_OVER_CHARS} cleared. */
function clearedMessages(units: MessageUnit[]): ChatMessage[] {
  return units.flatMap((unit) => unit.messages).map((message) =>
    message.role === "tool" && (message.content?.length ?? 0) > CLEAR_TOOL_OUTPUT_OVER_CHARS
      ? { ...message, content: CLEARED_TOOL_OUTPUT }
      : message
  );
}

/** The head Hermes protects: leading system messages and everything up to the first user message. */
function protectedHeadLength(messages: ChatMessage[]): number {
  const start = leadingSystemCount(messages);
  for (let i = start; i < messages.length; i++) if (messages[i].role === "user") return i + 1;
  return start;
}

/** An engine in the style of Hermes Agent's compressor, summarizing with `chat`. */
export function createHermesLikeEngine(chat: ChatModel): ContextEngine {
  return {
    kind: "reimplementation",
    name: "hermes-like",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
      const { counter, budgetTokens } = opts;
      const head = messages.slice(0, protectedHeadLength(messages));
      const units = splitUnits(messages.slice(head.length));
      // Token-sized tail: the newest whole units within TAIL_SHARE of the budget (at least one unit).
      const tailStart = unitsToDrop([], units, Math.floor(budgetTokens * TAIL_SHARE), counter);
      let middleUnits: MessageUnit[] = units.slice(0, tailStart);
      let tailUnits = units.slice(tailStart);
      const tail = () => assembleWindow([], tailUnits, 0);
      const pruned = repairToolPairing([...head, ...clearedMessages(middleUnits), ...tail()]);
      if (counter.countMessages(pruned) <= budgetTokens) return { messages: pruned };

      const scaffold = [...head, summaryMessage("")];
      const tailDrop = unitsToDrop(scaffold, tailUnits, budgetTokens - MIN_SUMMARY_TOKENS, counter);
      if (tailDrop > 0) {
        middleUnits = [...middleUnits, ...tailUnits.slice(0, tailDrop)];
        tailUnits = tailUnits.slice(tailDrop);
      }
      const room = budgetTokens - counter.countMessages([...scaffold, ...tail()]) - 8;
      const outcome = await summarizeMessages(chat, clearedMessages(middleUnits), {
        maxTokens: Math.max(16, room),
        template: STRUCTURED_SUMMARY_TEMPLATE,
        scope: "the middle of this agent conversation (the turns between its start and its latest turns)",
      });
      const build = (text: string) =>
        repairToolPairing([...head, summaryMessage(text, "Context summary of the middle turns"), ...tail()]);
      const text = fitTextToBudget(outcome.text, build, budgetTokens, counter);
      const usage = { ...outcome.usage, calls: 1 };
      const built = build(text);
      // A summary never makes the window larger: on a small input keep the pruned (or the original) window.
      if (counter.countMessages(built) >= opts.currentTokens) {
        const smaller = counter.countMessages(pruned) < opts.currentTokens ? pruned : [...messages];
        return { messages: smaller, usage, records: [outcome.record] };
      }
      return { messages: built, usage, records: [outcome.record] };
    },
  };
}
