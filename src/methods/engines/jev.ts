/**
 * The `jev` engine: asks the decision model, for every tool call and its result, the probability that
 * an agent continuing the conversation still needs that result. High (p ≥ {@link JEV_KEEP_AT}): keep the
 * pair; middle (p ≥ {@link JEV_CUT_AT}): keep the call and cut the result to its head; low: drop the pair.
 * If the window is still over budget, pairs go lowest probability first (ties: oldest first), then the
 * oldest plain turns.
 *
 * @module
 */
import type { ChatMessage, ToolCall } from "../../models/messages.ts";
import type { CallRecord, DecisionModel, NoulQuestion } from "../../models/types.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { type CompressOptions, type CompressResult, type ContextEngine, EngineError } from "./engine.ts";
import { assembleWindow, unitsToDrop } from "./fit.ts";
import { splitUnits } from "./tool_groups.ts";
import { leadingSystemCount } from "./truncate.ts";

/** Keep a pair when its probability is at least this. */
export const JEV_KEEP_AT = 0.6;
/** Cut a pair's result to a head when its probability is at least this (and below {@link JEV_KEEP_AT}). */
export const JEV_CUT_AT = 0.3;
/** Characters of a result kept when it is cut. */
export const JEV_HEAD_CHARS = 300;
/** Characters of a result shown to the decision model. */
const QUESTION_RESULT_CHARS = 1500;
/** Characters of the task shown to the decision model as state. */
const STATE_CHARS = 4000;

/** One tool call with its result. */
interface Pair {
  unit: number;
  call: ToolCall;
  result: ChatMessage;
  p: number;
  /** Order of the pair in the transcript. */
  order: number;
  fate: "keep" | "cut" | "drop";
}

/** What Jev selection produced. */
export interface JevSelection {
  messages: ChatMessage[];
  /** The pairs dropped (assistant call message + result), oldest first, for a summarizer. */
  dropped: ChatMessage[];
  usage: { input_tokens: number; output_tokens: number; calls: number };
  records: CallRecord[];
}

function firstUserText(messages: ChatMessage[]): string {
  return messages.find((message) => message.role === "user")?.content ?? "";
}

function lastUserText(messages: ChatMessage[]): string {
  return messages.findLast((message) => message.role === "user")?.content ?? "";
}

function cutHead(content: string): string {
  if (content.length <= JEV_HEAD_CHARS) return content;
  return `${content.slice(0, JEV_HEAD_CHARS)}\n[… ${content.length - JEV_HEAD_CHARS} characters cut]`;
}

/** Rebuilds the window from the head, the units and the pairs' fates (kept, cut or dropped). */
function render(head: ChatMessage[], units: ChatMessage[][], pairs: Map<string, Pair>): ChatMessage[] {
  const out = [...head];
  for (const unit of units) {
    const first = unit[0];
    if (first.role !== "assistant" || !first.tool_calls?.length) {
      out.push(...unit);
      continue;
    }
    const kept = first.tool_calls.filter((call) => pairs.get(call.id)?.fate !== "drop");
    if (kept.length > 0) out.push({ ...first, tool_calls: kept });
    else if (first.content && first.content.trim() !== "") {
      const { tool_calls: _dropped, ...rest } = first;
      out.push(rest);
    }
    for (const result of unit.slice(1)) {
      const pair = pairs.get(result.tool_call_id ?? "");
      if (pair === undefined || pair.fate === "drop") continue;
      out.push(pair.fate === "cut" ? { ...result, content: cutHead(result.content ?? "") } : result);
    }
  }
  return out;
}

/** Runs Jev's keep / cut / drop selection within `budgetTokens`. */
export async function jevSelect(
  decision: DecisionModel,
  messages: ChatMessage[],
  budgetTokens: number,
  counter: TokenCounter,
): Promise<JevSelection> {
  const head = messages.slice(0, leadingSystemCount(messages));
  const units = splitUnits(messages.slice(head.length));
  const pairs = new Map<string, Pair>();
  const ordered: Pair[] = [];
  units.forEach((unit, index) => {
    if (!unit.isToolGroup) return;
    for (const call of unit.messages[0].tool_calls ?? []) {
      const result = unit.messages.slice(1).find((message) => message.tool_call_id === call.id);
      if (result === undefined) continue;
      const pair: Pair = { unit: index, call, result, p: 0, order: ordered.length, fate: "keep" };
      pairs.set(call.id, pair);
      ordered.push(pair);
    }
  });
  const usage = { input_tokens: 0, output_tokens: 0, calls: 0 };
  const records: CallRecord[] = [];
  if (ordered.length > 0) {
    const state = [
      "An agent is working on a task in a long conversation whose context must be compacted.",
      `Task (first user message): ${firstUserText(messages).slice(0, STATE_CHARS / 2)}`,
      `Latest user message: ${lastUserText(messages).slice(0, STATE_CHARS / 2)}`,
    ].join("\n");
    const questions: NoulQuestion[] = ordered.map((pair) => ({
      type: "noul",
      instructions: [
        `Tool call: ${pair.call.function.name} ${pair.call.function.arguments}`,
        `Result:\n${(pair.result.content ?? "").slice(0, QUESTION_RESULT_CHARS)}`,
        "Probability that an agent continuing this conversation still needs this tool result?",
      ].join("\n"),
    }));
    const answer = await decision.ask(state, questions);
    records.push(...answer.records);
    if (!answer.ok) {
      throw new EngineError(`decision model call failed: ${answer.error}`, { records: [...records] });
    }
    if (answer.nouls.length !== ordered.length) {
      throw new EngineError(`decision model answered ${answer.nouls.length} of ${ordered.length} questions`, {
        records: [...records],
      });
    }
    usage.input_tokens += answer.usage.input_tokens;
    usage.output_tokens += answer.usage.output_tokens;
    usage.calls += answer.records.length;
    ordered.forEach((pair, i) => {
      pair.p = answer.nouls[i];
      pair.fate = pair.p >= JEV_KEEP_AT ? "keep" : pair.p >= JEV_CUT_AT ? "cut" : "drop";
    });
  }
  const unitMessages = units.map((unit) => unit.messages);
  let window = render(head, unitMessages, pairs);
  if (counter.countMessages(window) > budgetTokens) {
    // Drop surviving pairs, lowest probability first, guessing from result sizes, then counting exactly.
    const survivors = ordered.filter((pair) => pair.fate !== "drop").sort((a, b) =>
      a.p - b.p || a.order - b.order
    );
    let over = counter.countMessages(window) - budgetTokens;
    let m = 0;
    while (m < survivors.length && over > 0) {
      const content = survivors[m].fate === "cut"
        ? cutHead(survivors[m].result.content ?? "")
        : survivors[m].result.content ?? "";
      over -= counter.countText(content) + counter.countText(survivors[m].call.function.arguments) + 10;
      m++;
    }
    const apply = (k: number) => survivors.forEach((pair, i) => pair.fate = i < k ? "drop" : pair.fate);
    apply(m);
    window = render(head, unitMessages, pairs);
    while (m < survivors.length && counter.countMessages(window) > budgetTokens) {
      apply(++m);
      window = render(head, unitMessages, pairs);
    }
    if (counter.countMessages(window) > budgetTokens) {
      // Only plain turns are left to give: drop the oldest.
      const rest = splitUnits(window.slice(head.length));
      window = assembleWindow(head, rest, unitsToDrop(head, rest, budgetTokens, counter));
    }
  }
  const dropped = ordered.filter((pair) => pair.fate === "drop").flatMap((pair) => [
    { role: "assistant" as const, content: null, tool_calls: [pair.call] },
    pair.result,
  ]);
  return { messages: window, dropped, usage, records };
}

/** An engine that keeps, cuts or drops tool pairs by the decision model's probabilities. */
export function createJevEngine(decision: DecisionModel): ContextEngine {
  return {
    kind: "built-in",
    name: "jev",
    async compress(messages: ChatMessage[], opts: CompressOptions): Promise<CompressResult> {
      if (opts.currentTokens <= opts.budgetTokens) return { messages: [...messages] };
      const selection = await jevSelect(decision, messages, opts.budgetTokens, opts.counter);
      return { messages: selection.messages, usage: selection.usage, records: selection.records };
    },
  };
}
