/**
 * The `hermes-like` engine: a REIMPLEMENTATION of Hermes Agent's compressor idea (`hermes` runs the real one):
 * protect head and tail, clear old tool outputs, summarize the middle in a template, repair orphaned tool pairs.
 * Its summaries come from the chat model (prompts always say "summary": the reference model dispatches on it);
 * the transcript rendering and the summary message serve the method engines too (../method_engine.ts).
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { ChatModel } from "../../models/types.ts";
import { type CompressOptions, type CompressResult, type ContextEngine, EngineError } from "./engine.ts";
import {
  assembleWindow,
  leadingSystemCount,
  type MessageUnit,
  repairToolPairing,
  splitUnits,
  unitsToDrop,
} from "./tool_groups.ts";

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

/** An engine in the style of Hermes Agent's compressor, summarizing with `chat`. */
export function createHermesLikeEngine(chat: ChatModel): ContextEngine {
  return {
    kind: "reimplementation",
    name: "hermes-like",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
      const { counter, budgetTokens } = opts;
      // The head Hermes protects: leading system messages and everything up to the first user message.
      const start = leadingSystemCount(messages);
      const firstUser = messages.findIndex((message, i) => i >= start && message.role === "user");
      const head = messages.slice(0, firstUser < 0 ? start : firstUser + 1);
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

/** The structured template Hermes-style compaction asks for. */
export const STRUCTURED_SUMMARY_TEMPLATE = [
  "## Goal",
  "## Progress",
  "## Key facts (exact identifiers, values, tokens, paths, numbers)",
  "## Files",
  "## Next steps",
].join("\n");

/** Renders messages as plain text for a summarizer: one block per message, tool calls spelled out. */
export function renderTranscript(messages: ChatMessage[]): string {
  const blocks: string[] = [];
  for (const message of messages) {
    const tool = `[tool result ${message.tool_call_id ?? ""}]`.replace(" ]", "]");
    const lines = [message.role === "tool" ? tool : `[${message.role}]`];
    if (message.content) lines.push(message.content);
    for (const call of message.tool_calls ?? []) {
      lines.push(`(tool call ${call.id}: ${call.function.name} ${call.function.arguments})`);
    }
    blocks.push(lines.join("\n"));
  }
  return blocks.join("\n\n");
}

/**
 * Asks the chat model for a summary of `messages` (what they are: `scope`) in at most `maxTokens`, following
 * `template` if given; a failed call becomes an {@link EngineError}.
 */
export async function summarizeMessages(
  chat: ChatModel,
  messages: ChatMessage[],
  options: { maxTokens: number; template?: string; scope?: string },
) {
  const scope = options.scope ?? "the conversation below";
  const instructions = [
    `Write a summary of ${scope} so that an agent can continue the task without it.`,
    "In the summary keep every exact fact verbatim: identifiers, tokens, values, file paths, numbers, decisions.",
    options.template ? `Use this structure for the summary:\n${options.template}` : "",
    `Keep the summary under ${options.maxTokens} tokens.`,
  ].filter((line) => line !== "").join("\n");
  // The instructions last: the reference model reads the last user message as the request.
  const result = await chat.complete({
    messages: [
      { role: "system", content: "You write faithful, compact summaries of agent conversations." },
      { role: "user", content: `<conversation>\n${renderTranscript(messages)}\n</conversation>` },
      { role: "user", content: instructions },
    ],
    max_tokens: Math.max(1, Math.floor(options.maxTokens)),
  });
  if (!result.ok) throw new EngineError(`summary call failed: ${result.error}`, { records: [result.record] });
  return {
    text: result.content,
    usage: { input_tokens: result.usage.prompt_tokens, output_tokens: result.usage.completion_tokens },
    record: result.record,
  };
}

/** The message that carries a summary into the compacted window. */
export function summaryMessage(text: string, label = "Summary of the earlier conversation"): ChatMessage {
  return { role: "user", content: `[${label}]\n${text}` };
}

/**
 * Shortens `text` until `build(text)` counts at most `budget` tokens (cutting from the end in proportion to
 * the overrun, then halving); the text that fits, possibly "".
 */
export function fitTextToBudget(
  text: string,
  build: (text: string) => ChatMessage[],
  budget: number,
  counter: { countMessages(messages: ChatMessage[]): number; countText(text: string): number },
): string {
  let current = text;
  for (let round = 0; round < 12; round++) {
    const over = counter.countMessages(build(current)) - budget;
    if (over <= 0 || current.length === 0) return current;
    const tokens = Math.max(1, counter.countText(current));
    const charsPerToken = current.length / tokens;
    const cut = round < 6 ? Math.ceil((over + 4) * charsPerToken) : Math.ceil(current.length / 2);
    current = current.slice(0, Math.max(0, current.length - cut));
  }
  return counter.countMessages(build(current)) <= budget ? current : "";
}
