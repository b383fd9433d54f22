/**
 * The engines runner: every engine compresses the same transcript once cold and `repeats` times warm; the cold
 * output is validated and measured (tokens, savings, needle and QA recall), only the compress call is timed,
 * and warm calls with retried model calls are left out of the warm figures. A failing engine is recorded.
 * @module
 */
import { createEngine } from "../../methods/engines/create.ts";
import type { EngineSelection } from "../../methods/engines/engine_names.ts";
import {
  type CompressUsage,
  EngineError,
  type EngineKind,
  EngineSkipped,
  type EngineTiming,
  type RecallSession,
  type WorkerInfo,
} from "../../methods/engines/engine.ts";
import { z } from "zod";
import { type ChatMessage, ChatMessageSchema } from "../../models/messages.ts";
import { toolPairingProblem } from "../../methods/engines/tool_groups.ts";
import type { CallRecord, ChatModel, DecisionModel } from "../../models/types.ts";
import type { LoopbackProxy } from "../../models/loopback_proxy.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import { addUsage, emptyUsage } from "../../core/usage.ts";
import type { Needle, Probe } from "../../data/transcripts/types.ts";
import { mean, median, needleRecall, percentile, type QaItem, type QaRecall, qaRecall } from "./metrics.ts";
import { transcriptHash } from "./generate.ts";
import { DEFAULT_RECOVERY_ROUNDS, recoveryRecall } from "./recovery.ts";

/** Share of the input tokens used as the budget when none is given. */
export const DEFAULT_BUDGET_SHARE = 0.25;
/** Default time limit of one compress call of an outside engine. */
export const DEFAULT_ENGINE_TIMEOUT_MS = 60_000;

/** Progress of a run, for a progress line. */
export interface EngineProgress {
  engine: string;
  phase: "cold" | "warm" | "qa" | "recovery" | "done";
  index: number;
  total: number;
  status?: EngineResult["status"];
}

/** Options of {@link runEngines}. */
export interface RunEnginesOptions {
  messages: ChatMessage[];
  needles?: Needle[];
  probes?: Probe[];
  engines: (string | EngineSelection)[];
  repeats: number;
  counter: TokenCounter;
  chat?: ChatModel;
  decision?: DecisionModel;
  /** Default: {@link DEFAULT_BUDGET_SHARE} of the input tokens; the label as asked for (`25%`, `4000`). */
  budgetTokens?: number;
  budgetLabel?: string;
  /** `--context-length N`: told to every engine that takes one; the budget is then N. */
  contextLength?: number;
  engineEnv?: Readonly<Record<string, string>>;
  hermesDir?: string;
  /** The loopback chat endpoint handed to outside engines (their model calls are recorded as theirs). */
  endpoint?: LoopbackProxy;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** Default: when a chat model is given. */
  qa?: boolean;
  /** Tool rounds per question of the +recovery arm (0: none). */
  recoveryRounds?: number;
  onProgress?: (progress: EngineProgress) => void;
}

/** One conversation of a multi-sample run: its index in the file and the file's own id (`sample_id`) or null. */
export interface ConversationRef {
  sample: number;
  sample_id: string | null;
}

/** QA recall summary of one engine, without the per-question details when there are none. */
export type QaSummary = Omit<QaRecall, "records">;

/** Everything measured for one engine. */
export interface EngineResult {
  /** The name the tables show (`NAME` of `--engine NAME=SPEC`, else the spec). */
  engine: string;
  spec: string;
  kind: EngineKind;
  /** A framework library engine's libraries and versions (`@langchain/core 1.4.0`); absent before v2. */
  library?: string | null;
  /** How the engine meets the budget when not by this program's exact count (its own), else null. */
  note?: string | null;
  /** `skipped`: the engine could not run here (e.g. the real package is missing); nothing is measured. */
  status: "ok" | "failed" | "skipped";
  reason: string | null;
  budget_tokens: number;
  budget: string;
  /** The conversation of a multi-sample file (`--sample`) this row measures; absent otherwise. */
  conversation?: ConversationRef;
  input_tokens: number;
  output_tokens: number | null;
  saved_tokens: number | null;
  savings_pct: number | null;
  within_budget: boolean | null;
  messages_in: number;
  messages_out: number | null;
  tool_pairing_valid: boolean | null;
  needles: { total: number; found: number; recall: number | null; found_ids: string[] };
  /** QA recall of the needles' questions and of imported probes (null when not asked). */
  qa: QaSummary | null;
  probes: QaSummary | null;
  /** `--context-length`, else null; this and the timing fields are absent in rows before engines-engine v5. */
  context_length?: number | null;
  /** `worker` and `in-process` rows have the engine's own `compress_ms`; a `one-shot` row only its round trip. */
  timing?: EngineTiming;
  timing_note?: string | null;
  /** The engine's own compress call (ms; warm: those without retried model calls); null for one-shot engines. */
  compress_ms?: CallTimes;
  /** A worker engine's start-up (spawn to hello, ms), else null. */
  startup_ms?: number | null;
  worker?: Omit<WorkerInfo, "startup_ms"> | null;
  /** The round trip per call (ms); warm figures over the warm calls that needed no retry. */
  latency_ms: CallTimes & { warm_excluded_retried: number; cold_retried_attempts: number };
  /** True when every warm call returned the same window as the cold one. */
  deterministic: boolean | null;
  /** Model usage of the cold compress call, of all compress calls, of the QA questions. */
  usage: CompressUsage | null;
  usage_all_calls: CompressUsage;
  qa_usage: CompressUsage;
  /** The +recovery arm of an engine whose cold call offered recall tools (absent before engines-engine v3). */
  recovery?: RecoverySummary | null;
  /** SHA-256 of the canonical JSON of the cold output window. */
  window_hash: string | null;
  window: ChatMessage[] | null;
  /** Provider exchanges of the cold compress call and of the QA questions. */
  records: CallRecord[];
}

/** The times of the cold call and of the warm calls (ms), with the warm calls' mean, median and p95. */
export interface CallTimes {
  cold: number | null;
  warm_mean: number | null;
  warm_median: number | null;
  warm_p95: number | null;
  warm: number[];
}

function noTimes(): CallTimes {
  return { cold: null, warm_mean: null, warm_median: null, warm_p95: null, warm: [] };
}

function summarizeWarm(times: CallTimes): void {
  times.warm_mean = mean(times.warm);
  times.warm_median = median(times.warm);
  times.warm_p95 = percentile(times.warm, 95);
}

/** What the +recovery arm measured for one engine (see {@link EngineResult.recovery}). */
export interface RecoverySummary {
  tools: string[];
  rounds: number;
  qa: QaSummary | null;
  probes: QaSummary | null;
  usage: CompressUsage;
  extra_input_tokens: number;
  tool_calls: number;
  tool_errors: number;
}

/** A LoCoMo item's category as a number (1-5), or 0 (scored by whole-text F1) when it has none of those. */
export function locomoCategory(category: string | undefined): number {
  const value = Number(category);
  return Number.isInteger(value) && value >= 1 && value <= 5 ? value : 0;
}

/** A probe's id in answers and reports: its own, or `probe-N` (1-based position) when it has none. */
export function probeId(probe: Pick<Probe, "id">, index: number): string {
  return probe.id ?? `probe-${index + 1}`;
}

/** Attempts beyond the first, over the provider exchanges of one compress call. */
function retriedAttempts(records: readonly { attempts: number }[] | undefined): number {
  return (records ?? []).reduce((n, record) => n + Math.max(0, record.attempts - 1), 0);
}

/** Runs every engine over the transcript and measures it; see the module notes. */
export async function runEngines(options: RunEnginesOptions): Promise<EngineResult[]> {
  const { messages, counter, repeats } = options;
  const needles = options.needles ?? [];
  const probes = options.probes ?? [];
  const inputTokens = counter.countMessages(messages);
  // A context length is the window engines without that knob fit.
  const budget = options.budgetTokens ?? options.contextLength ??
    Math.floor(inputTokens * DEFAULT_BUDGET_SHARE);
  const askQa = (options.qa ?? options.chat !== undefined) && options.chat !== undefined;
  const recoveryRounds = options.recoveryRounds ?? DEFAULT_RECOVERY_ROUNDS;
  const deps = {
    chat: options.chat,
    decision: options.decision,
    timeoutMs: options.timeoutMs ?? DEFAULT_ENGINE_TIMEOUT_MS,
    maxOutputBytes: options.maxOutputBytes,
    env: options.engineEnv,
    hermesDir: options.hermesDir,
    endpoint: options.endpoint,
  };
  const selections = options.engines.map((e) => typeof e === "string" ? { name: e, spec: e } : e);
  const engines = selections.map(({ name, spec }) => createEngine(spec, deps, name));
  const results: EngineResult[] = [];
  for (const [index, engine] of engines.entries()) {
    const progress = (phase: EngineProgress["phase"], status?: EngineResult["status"]) =>
      options.onProgress?.({ engine: engine.name, phase, index, total: engines.length, status });
    const own = noTimes();
    const result: EngineResult = {
      engine: engine.name,
      spec: selections[index].spec,
      kind: engine.kind,
      library: engine.library ?? null,
      note: engine.note ?? null,
      status: "ok",
      reason: null,
      budget_tokens: budget,
      budget: options.budgetLabel ??
        (options.contextLength !== undefined
          ? `ctx ${options.contextLength}`
          : options.budgetTokens === undefined
          ? "25%"
          : String(budget)),
      context_length: options.contextLength ?? null,
      timing: engine.timing ?? "in-process",
      timing_note: null,
      compress_ms: own,
      startup_ms: null,
      worker: null,
      input_tokens: inputTokens,
      output_tokens: null,
      saved_tokens: null,
      savings_pct: null,
      within_budget: null,
      messages_in: messages.length,
      messages_out: null,
      tool_pairing_valid: null,
      needles: { total: needles.length, found: 0, recall: null, found_ids: [] },
      qa: null,
      probes: null,
      latency_ms: { ...noTimes(), warm_excluded_retried: 0, cold_retried_attempts: 0 },
      deterministic: null,
      usage: null,
      usage_all_calls: emptyUsage(),
      qa_usage: emptyUsage(),
      recovery: null,
      window_hash: null,
      window: null,
      records: [],
    };
    const fail = (reason: string) => {
      result.status = "failed";
      result.reason = reason;
    };
    const opts = {
      budgetTokens: budget,
      currentTokens: inputTokens,
      counter,
      ...(options.contextLength !== undefined ? { contextLength: options.contextLength } : {}),
    };
    // Each call gets its own copy, so an engine that edits its input cannot affect the next call.
    const call = async () => {
      const input = structuredClone(messages);
      const started = performance.now();
      const output = await engine.compress(input, opts);
      const ms = performance.now() - started;
      result.timing = output.timing ?? engine.timing ?? "in-process";
      const own = result.timing === "in-process" ? ms : output.engineMs ?? null;
      return { output, ms, own };
    };
    progress("cold");
    let window: ChatMessage[] | null = null;
    // Kept open for the +recovery arm.
    let coldRecall: RecallSession | undefined;
    try {
      // Loading a library is not part of a compaction: done before the cold call's timer.
      await engine.prepare?.();
      const cold = await call();
      result.latency_ms.cold = cold.ms;
      own.cold = cold.own;
      result.latency_ms.cold_retried_attempts = retriedAttempts(cold.output.records);
      result.usage = cold.output.usage ?? emptyUsage();
      addUsage(result.usage_all_calls, cold.output.usage);
      result.records.push(...(cold.output.records ?? []));
      coldRecall = cold.output.recall;
      if (coldRecall !== undefined) {
        result.recovery = {
          tools: coldRecall.tools.map((tool) => tool.function.name),
          rounds: recoveryRounds,
          qa: null,
          probes: null,
          usage: emptyUsage(),
          extra_input_tokens: 0,
          tool_calls: 0,
          tool_errors: 0,
        };
      }
      const check = validateEngineOutput(cold.output.messages, inputTokens, counter);
      if (!check.ok) {
        await coldRecall?.close();
        coldRecall = undefined;
        fail(check.reason);
        result.tool_pairing_valid = check.pairingValid;
      } else {
        window = check.messages;
        result.window = window;
        result.window_hash = transcriptHash(window);
        result.tool_pairing_valid = true;
        result.output_tokens = check.tokens;
        result.saved_tokens = inputTokens - check.tokens;
        result.savings_pct = inputTokens > 0 ? (100 * (inputTokens - check.tokens)) / inputTokens : 0;
        result.within_budget = check.tokens <= budget;
        result.messages_out = window.length;
        result.needles = needleRecall(window, needles);
        progress("warm");
        let same = true;
        for (let r = 0; r < repeats; r++) {
          const warm = await call();
          await warm.output.recall?.close();
          if (retriedAttempts(warm.output.records) > 0) result.latency_ms.warm_excluded_retried++;
          else {
            result.latency_ms.warm.push(warm.ms);
            if (warm.own !== null) own.warm.push(warm.own);
          }
          addUsage(result.usage_all_calls, warm.output.usage);
          if (same && transcriptHash(warm.output.messages) !== result.window_hash) same = false;
        }
        result.deterministic = repeats > 0 ? same : null;
        summarizeWarm(result.latency_ms);
        summarizeWarm(own);
      }
    } catch (error) {
      await coldRecall?.close();
      coldRecall = undefined;
      if (error instanceof EngineSkipped) {
        result.status = "skipped";
        result.reason = error.message;
        for (const times of [result.latency_ms, own]) Object.assign(times, { cold: null, warm: [] });
        window = null; // a skip in a warm call: nothing is asked
      } else {
        if (!(error instanceof EngineError)) throw error;
        fail(result.latency_ms.cold === null ? error.message : `warm call: ${error.message}`);
        result.records.push(...error.records);
        result.usage_all_calls.calls += error.records.length;
      }
    }
    if (window !== null && askQa && options.chat !== undefined) {
      progress("qa");
      const items: QaItem[] = needles.map(({ id, question, answer }) => ({ id, question, facts: [answer] }));
      const probeItems: QaItem[] = probes.map((probe, i) => ({
        id: probeId(probe, i),
        question: probe.question,
        facts: probe.facts ?? [probe.answer],
        ...(probe.category !== undefined ? { type: probe.category } : {}),
        ...(probe.scoring === "locomo"
          ? { locomo: { answer: probe.answer, category: locomoCategory(probe.category) } }
          : {}),
      }));
      const lists = ([["qa", items], ["probes", probeItems]] as const).filter(([, list]) => list.length > 0);
      for (const [key, list] of lists) {
        const { records, ...summary } = await qaRecall(options.chat, window, list);
        result[key] = summary;
        result.records.push(...records);
        addUsage(result.qa_usage, summary.usage);
      }
      if (coldRecall !== undefined && result.recovery && recoveryRounds > 0) {
        progress("recovery");
        const recovery = result.recovery;
        for (const [key, list] of lists) {
          const { records, tool_calls, tool_errors, ...summary } = await recoveryRecall(
            options.chat,
            window,
            list,
            coldRecall,
            recoveryRounds,
          );
          recovery[key] = summary;
          result.records.push(...records);
          addUsage(recovery.usage, summary.usage);
          recovery.tool_calls += tool_calls;
          recovery.tool_errors += tool_errors;
        }
        recovery.extra_input_tokens = recovery.usage.input_tokens - result.qa_usage.input_tokens;
      }
    }
    await coldRecall?.close();
    // The worker's hello and start-up and the timing note (none for a skip); then the engine's worker ends.
    const skipped = result.status === "skipped";
    const worker = skipped ? null : engine.worker?.() ?? null;
    if (worker !== null) {
      const { startup_ms, ...hello } = worker;
      result.startup_ms = startup_ms;
      result.worker = hello;
    }
    if (result.timing === "one-shot" && !skipped) result.timing_note = ONE_SHOT_NOTE;
    await engine.close?.();
    progress("done", result.status);
    results.push(result);
  }
  return results;
}

/** What a one-shot row says about its latency. */
export const ONE_SHOT_NOTE = "one-shot: latency includes process start";

/** The outcome of {@link validateEngineOutput}. */
export type OutputCheck =
  | { ok: true; messages: ChatMessage[]; tokens: number }
  | { ok: false; reason: string; pairingValid: boolean | null };

/** Validates `output` against the input's token count `inputTokens`. */
export function validateEngineOutput(
  output: unknown,
  inputTokens: number,
  counter: TokenCounter,
): OutputCheck {
  const parsed = z.array(ChatMessageSchema).safeParse(output);
  if (!parsed.success) {
    const { path, message } = parsed.error.issues[0];
    return {
      ok: false,
      reason: `malformed output: messages.${path.join(".")}: ${message}`,
      pairingValid: null,
    };
  }
  const messages = parsed.data;
  if (messages.length === 0) {
    return { ok: false, reason: "malformed output: no messages", pairingValid: null };
  }
  const problem = toolPairingProblem(messages);
  if (problem !== null) return { ok: false, reason: `broken tool pairing: ${problem}`, pairingValid: false };
  const tokens = counter.countMessages(messages);
  if (tokens > inputTokens) {
    return { ok: false, reason: `window grew from ${inputTokens} to ${tokens} tokens`, pairingValid: true };
  }
  return { ok: true, messages, tokens };
}
