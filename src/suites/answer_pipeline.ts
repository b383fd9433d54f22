/**
 * The answer pipeline hotpot and sweep share: {@link runAnswerTask} runs a suite's task (units, frozen
 * compression, conditions, scores, rows) at every ceiling, {@link publishAnswerRuns} its aggregates, ceilings
 * and report, {@link answerMerge} a run merged from shards (replayed with models that fail on any call). The
 * suites declare their rank, engine, context, answer and ceilings stages over the helpers here (and store
 * rankings and summaries as the schemas here say, each with its node key), under their own names, versions and
 * params (so existing runs' node keys do not change). An answer is one chat completion, its reported input
 * tokens checked against the ceiling; `--check-only` compares answer inputs with a frozen run's.
 *
 * @module
 */
import { z } from "zod";
import pLimit from "p-limit";
import { type AnyStageDef, defineStage } from "../pipeline/stage.ts";
import { Executor, type NodeOutcome, type NodeResult } from "../pipeline/executor.ts";
import { type ChatMessage, ChatMessageSchema } from "../models/messages.ts";
import { countPrompt } from "../tokens/budget.ts";
import {
  contextNeeds,
  declaredMethod,
  type Evidence,
  type EvidenceFrame,
  type MethodArtifacts,
  type MethodParams,
} from "../methods/registry.ts";
import type { TokenCounter } from "../tokens/types.ts";
import {
  ENGINE_STAGE_PARAMS,
  ENGINE_WINDOW_OUTPUT,
  runEngineStage,
  StoredWindowSchema,
} from "../methods/engine_method.ts";
import { publishedJson, rowIds, rowInput } from "./published.ts";
import { bindRunHeader, publishedJsonStage, publishJsonFile } from "./published.ts";
import { parseJson } from "../core/json_read.ts";
import {
  type AnsweringModels,
  type ModelRole,
  ModelTally,
  requestedModels,
} from "../core/answering_models.ts";
import { heapBudget } from "../core/heap_budget.ts";
import { plainCheck, readPlain } from "../core/plain_check.ts";
import type { ModelSetup } from "./model_setup.ts";
import type { CheckOnlyReport, RunContext } from "./run_lifecycle.ts";
import type { SuiteMerge } from "./suite.ts";
import type { RunDir } from "../store/run_dir.ts";
import { readPrices } from "../analysis/read_prices.ts";
import type { ReportAnalysisOptions } from "../analysis/report_inputs.ts";
import { runHeaderStage } from "../pipeline/run_header.ts";
import { rank } from "../models/rank.ts";
import type { ChatModel, DecisionModel, RankUnit } from "../models/types.ts";
import type { LoopbackProxy } from "../models/loopback_proxy.ts";
import { UsageError } from "../errors.ts";
import { Progress } from "../pipeline/progress.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import type { CallRecord } from "../core/call_record.ts";

/** What the suites' model-calling stages need (`endpoint`: the loopback chat endpoint outside engines get). */
export interface ModelStageEnv {
  decision: DecisionModel;
  chat: ChatModel;
  counter: TokenCounter;
  endpoint?: LoopbackProxy;
}

/** How a suite declares its `*-rank` stage (version 2). */
export interface RankStageDecl<S extends z.ZodRawShape, E extends { decision: DecisionModel }> {
  name: string;
  doc: string;
  params: S;
  inputs: readonly string[];
  /** The units to rank and the task they are ranked for, or why the unit is invalid. */
  units(
    params: z.infer<z.ZodObject<S>>,
    inputs: Record<string, unknown>,
    env: E,
  ): { units: readonly RankUnit[]; task: string } | { invalid: string };
}

/** A suite's ranking stage (see {@link RankStageDecl}). */
export function defineRankStage<S extends z.ZodRawShape, E extends { decision: DecisionModel }>(
  decl: RankStageDecl<S, E>,
) {
  const Params = z.object(decl.params);
  return defineStage({
    name: decl.name,
    version: 2,
    doc: decl.doc,
    params: Params,
    inputs: decl.inputs,
    outputs: {
      ranking: {
        schema: StoredRankingSchema.nullable(),
        plain: isPlainRanking,
        doc: "unit ids by descending probability, with the node key",
      },
    },
    provider: true,
    async run({ params, inputs, key, env }: {
      params: z.infer<typeof Params>;
      inputs: Record<string, unknown>;
      key: string;
      env: E;
    }) {
      const plan = decl.units(params, inputs, env);
      if ("invalid" in plan) {
        const ranking: StoredRankingValue = { node: key, ok: false, order: [], error: plan.invalid };
        return { outputs: { ranking }, status: "invalid" as const };
      }
      const result = await rank(env.decision, [...plan.units], plan.task);
      if (!result.ok) {
        const ranking: StoredRankingValue = { node: key, ok: false, order: [], error: result.error };
        return {
          outputs: { ranking },
          requests: result.records,
          status: "invalid" as const,
          reason: result.error,
        };
      }
      const { order, probabilities, model } = result;
      return {
        outputs: { ranking: { model, node: key, ok: true, order, probabilities } }, // members in code-unit order
        requests: result.records,
      };
    },
  });
}

/** A rank node's `ranking` output. */
export const StoredRankingSchema = z.object({
  node: z.string().optional(),
  ok: z.boolean(),
  /** Unit ids, strictly descending probability, ties by id; empty when the ranking failed. */
  order: z.array(z.string()),
  probabilities: z.record(z.string(), z.number()).optional(),
  model: z.string().optional(),
  error: z.string().optional(),
});
/** A rank node's `ranking` output. */
export type StoredRankingValue = z.infer<typeof StoredRankingSchema>;

/** A summary node's `summary` output. */
export const StoredSummarySchema = z.object({
  node: z.string().optional(),
  ok: z.boolean(),
  text: z.string().nullable(),
  /** Unit ids kept verbatim beside the summary (fusion). */
  kept: z.array(z.string()).optional(),
  reason: z.string().optional(),
  attempts: z.number().int().optional(),
});

/** Fast one-sided check of a stored ranking (or null), derived from its schema (core/plain_check.ts). */
export const isPlainRanking = plainCheck(StoredRankingSchema.nullable());
/** Fast one-sided check of a stored summary (or null). */
export const isPlainSummary = plainCheck(StoredSummarySchema.nullable());
const MessagesOutputSchema = z.array(ChatMessageSchema).nullable();
/** Fast one-sided check of a context stage's `messages` output. */
export const isPlainMessages = plainCheck(MessagesOutputSchema);

/**
 * How a suite declares its `*-context` stage (version 2): `unit` gives its unit's frame, `full` input and
 * question (or why it is invalid), `method` the declared method of the params; `empty` and `listed` the suite's
 * own info fields without and with rendered evidence; `summaryFirst`: a missing summary is refused first.
 */
interface ContextStageDecl<P extends z.ZodRawShape, E, I> {
  name: string;
  doc: string;
  params: P;
  inputs: readonly string[];
  info: z.ZodType<I>;
  empty: Record<string, unknown>;
  listed(evidence: Evidence, artifacts: MethodArtifacts, counter: TokenCounter): Record<string, unknown>;
  reuseFrozen?: false;
  summaryFirst?: true;
  unit(params: z.infer<z.ZodObject<P>>, inputs: Record<string, unknown>, env: E):
    | { frame(limit: number, summary: boolean): EvidenceFrame; full(): ChatMessage[]; question: string }
    | { invalid: string };
  method(params: z.infer<z.ZodObject<P>>): { name: string; params: MethodParams };
}

/**
 * A suite's context stage: one condition's answer input (its method's evidence, or an engine's window and the
 * unit's question), counted exactly. A context over `limit` (ceiling − reserve) that the ceiling binds is
 * recorded invalid, never shrunk and never sent (it counts zero in the aggregate).
 */
export function defineContextStage<P extends z.ZodRawShape, E extends { counter: TokenCounter }, I>(
  decl: ContextStageDecl<P, E, I>,
) {
  const Params = z.object(decl.params);
  return defineStage({
    name: decl.name,
    version: 2,
    doc: decl.doc,
    params: Params,
    inputs: decl.inputs,
    outputs: {
      messages: {
        schema: MessagesOutputSchema,
        plain: isPlainMessages,
        doc: "the answer input (null when invalid)",
      },
      info: { schema: decl.info, doc: "exact token count, within the ceiling, kept unit ids" },
    },
    provider: false,
    reuseFrozen: decl.reuseFrozen,
    run({ params, inputs, key, env }: {
      params: z.infer<typeof Params>;
      inputs: Record<string, unknown>;
      key: string;
      env: E;
    }) {
      const unit = decl.unit(params, inputs, env);
      const { input_cap, reserve } = params as { input_cap: number; reserve: number };
      const limit = input_cap - reserve;
      const empty = { node: key, tokens: null, within_cap: null, ...decl.empty };
      const fail = (reason: string) =>
        Promise.resolve({ outputs: { messages: null, info: empty }, status: "invalid" as const, reason });
      if ("invalid" in unit) return fail(unit.invalid);
      let messages: ChatMessage[];
      let fields = decl.empty;
      let binds = true;
      let counted: number | undefined; // where the method counted this very input already
      if (inputs.window !== undefined) {
        // An engine method: its window, then the unit's question.
        const window = StoredWindowSchema.parse(inputs.window);
        if (!window.ok || window.messages === null) return fail(window.reason ?? "engine failed");
        messages = [...window.messages, { role: "user", content: unit.question }];
      } else {
        const { name, params: own } = decl.method(params);
        const method = declaredMethod(name);
        if (!method) throw new Error(`${decl.name}: no method ${name} is declared`);
        binds = method.ceilingBinds;
        const needs = contextNeeds(method);
        const artifacts: MethodArtifacts = {};
        const ranking = () => {
          if (!needs.includes("ranking") || own.n === 0) return; // S + Top 0 reads no ranking
          const stored = inputs.ranking == null
            ? undefined
            : readPlain(StoredRankingSchema, isPlainRanking, inputs.ranking);
          if (!stored?.ok) return `ranking failed: ${stored?.error}`;
          artifacts.order = stored.order;
        };
        const summary = () => {
          if (!needs.includes("summary")) return;
          const stored = inputs.summary == null
            ? undefined
            : readPlain(StoredSummarySchema, isPlainSummary, inputs.summary);
          if (!stored?.ok || stored.text === null) return `summary invalid: ${stored?.reason}`;
          artifacts.summary = { text: stored.text, kept: stored.kept ?? [] };
        };
        const problem = decl.summaryFirst ? summary() ?? ranking() : ranking() ?? summary();
        if (problem !== undefined) return fail(problem);
        const frame = unit.frame(limit, needs.includes("summary"));
        const evidence = method.evidence(frame, artifacts, own);
        if (evidence === null) {
          messages = unit.full();
          // The whole history, counted from its render: a context counts it once, and a key of its text (to
          // find a count made before) would cost about half of counting its cached pieces again.
          const render = env.counter.render?.bind(env.counter);
          if (render !== undefined) counted = env.counter.countText(render(messages));
        } else {
          messages = frame.render(evidence.kept, evidence.summary);
          counted = evidence.tokens ?? frame.count?.(evidence.kept, evidence.summary);
          fields = decl.listed(evidence, artifacts, env.counter);
        }
      }
      const tokens = counted ?? countPrompt(env.counter, messages);
      const outputs = { messages, info: { node: key, ...fields, tokens, within_cap: tokens <= limit } };
      if (!binds || tokens <= limit) return Promise.resolve({ outputs });
      const reason = `over budget: ${tokens} tokens > ${limit} (recorded, never shrunk)`;
      return Promise.resolve({ outputs, status: "invalid" as const, reason });
    },
  });
}

/** A node's inputs (blob hashes) and the same inputs' values, by name. */
export type Inputs = { inputs: Record<string, string>; values: Record<string, unknown> };

/** The input names of one ceiling's aggregate and rows (the ceilings and report stages' inputs). */
export const ceilingInputName = (part: "aggregate" | "results", cap: number) => `ceiling-${part}:${cap}`;

/** The ceilings stage's (and report's) inputs and values from the per-ceiling aggregate nodes. */
export function ceilingInputs(
  caps: readonly number[],
  aggregates: readonly { node: { outputs: Record<string, string> }; outputs: Record<string, unknown> }[],
): Inputs {
  const out: Inputs = { inputs: {}, values: {} };
  caps.forEach((cap, i) => {
    for (const part of ["aggregate", "results"] as const) {
      out.inputs[ceilingInputName(part, cap)] = aggregates[i].node.outputs[`${part}.json`];
      out.values[ceilingInputName(part, cap)] = aggregates[i].outputs[`${part}.json`];
    }
  });
  return out;
}

/** Reads one ceiling's aggregates and rows (as the suite's types) from the stage inputs. */
export function ceilingOf<A, R>(
  inputs: Record<string, unknown>,
  cap: number,
): { aggregates: A[]; rows: R[] } {
  const text = (part: "aggregate" | "results") => z.string().parse(inputs[ceilingInputName(part, cap)]);
  return { aggregates: parseJson(text("aggregate")) as A[], rows: parseJson(text("results")) as R[] };
}

/** How a suite declares its `*-ceilings` stage (`field`: what names a row's method; its value `full` is Full). */
export interface CeilingsDecl<F extends string> {
  name: string;
  doc: string;
  field: F;
  aggregateDoc: string;
}

type Keyed<F extends string> = Record<F, unknown>;

/** Every ceiling's rows, each with its `input_cap` (Full, which no ceiling limits, once with null). */
export function ceilingRows<R extends Keyed<F>, F extends string>(
  field: F,
  inputs: Record<string, unknown>,
  caps: readonly number[],
): (R & { input_cap: number | null })[] {
  return [
    ...ceilingOf<unknown, R>(inputs, caps[0]).rows.filter((r) => r[field] === "full").map((r) => ({
      ...r,
      input_cap: null,
    })),
    ...caps.flatMap((cap) =>
      ceilingOf<unknown, R>(inputs, cap).rows.filter((r) => r[field] !== "full").map((r) => ({
        ...r,
        input_cap: cap,
      }))
    ),
  ];
}

/**
 * A ceiling sweep's published rows and aggregates: `results.json` (Full's rows once with `input_cap` null,
 * then each ceiling's other rows with theirs) and `aggregate.json` (the primary ceiling's aggregates as a
 * single-ceiling run has them, each with its `input_cap`, then the other ceilings' aggregates but Full's).
 *
 * @example
 * ```ts ignore
 * export const sweepCeilingsStage = defineCeilingsStage({
 *   name: "sweep-ceilings", doc: "…", field: "kind", aggregateDoc: "per-kind (and per-ceiling) means",
 * });
 * ```
 */
export function defineCeilingsStage<F extends string>(decl: CeilingsDecl<F>) {
  const { field } = decl;
  return defineStage({
    name: decl.name,
    version: 1,
    doc: decl.doc,
    params: z.object({
      /** The ceilings as given; the first is the primary one. */
      caps: z.array(z.number().int()).min(2),
    }),
    inputs: ["ceiling-aggregate:*", "ceiling-results:*"],
    textInputs: ["ceiling-aggregate:*", "ceiling-results:*"],
    outputs: {
      "results.json": {
        schema: z.string(),
        kind: "text",
        doc: "every answer row with its input_cap, published as results.json",
      },
      "aggregate.json": { schema: z.string(), kind: "text", doc: decl.aggregateDoc },
    },
    provider: false,
    run({ params, inputs }) {
      const [primary, ...others] = params.caps;
      const of = (cap: number) => ceilingOf<Keyed<F>, Keyed<F>>(inputs, cap).aggregates;
      const aggregates = [
        ...of(primary).map((a) => ({ ...a, input_cap: a[field] === "full" ? null : primary })),
        ...others.flatMap((cap) =>
          of(cap).filter((a) => a[field] !== "full").map((a) => ({ ...a, input_cap: cap }))
        ),
      ];
      return Promise.resolve({
        outputs: {
          "results.json": publishedJson(ceilingRows(field, inputs, params.caps)),
          "aggregate.json": publishedJson(aggregates),
        },
      });
    },
  });
}

/** The params every suite's `*-engine` stage has besides the method's name and the suite's own. */
const EngineCommon = z.object({ ...ENGINE_STAGE_PARAMS, chat_model: z.string(), decision_model: z.string() });

/** What a suite's engine stage body needs: the counter and what `runEngineStage` needs. */
export type EngineStageEnv = Parameters<typeof runEngineStage>[2] & { counter: TokenCounter };

/**
 * How a suite declares its `*-engine` stage (version default 1): `name_param` names the method (`method`,
 * `kind`, first in the params), `params` are the suite's own (before the models'), and `history` gives the
 * public history the engine compacts and the evidence space every method has, or why the unit is invalid.
 */
export interface EngineStageDecl<S extends z.ZodRawShape, E extends EngineStageEnv> {
  name: string;
  version?: number;
  doc: string;
  name_param: string;
  params: S;
  inputs: readonly string[];
  history(
    params: z.infer<typeof EngineCommon> & z.infer<z.ZodObject<S>>,
    inputs: Record<string, unknown>,
    env: E,
  ): { messages: ChatMessage[]; budget: number; name: string } | { invalid: string };
}

/**
 * A context engine as a suite's method: it compacts the unit's public history to the evidence space every
 * method has, per generation (its key holds the spec and adapter hashes); the context stage adds the question.
 */
export function defineEngineStage<S extends z.ZodRawShape, E extends EngineStageEnv>(
  decl: EngineStageDecl<S, E>,
) {
  // In the declared order of the stage catalogue: the method's name, the engine's, the suite's, the models.
  const Params = z.object({
    [decl.name_param]: z.string(),
    ...ENGINE_STAGE_PARAMS,
    ...decl.params,
    chat_model: z.string(),
    decision_model: z.string(),
  }) as unknown as ReturnType<typeof EngineCommon.extend<S>>;
  return defineStage({
    name: decl.name,
    version: decl.version ?? 1,
    doc: decl.doc,
    params: Params,
    inputs: decl.inputs,
    outputs: { window: ENGINE_WINDOW_OUTPUT },
    provider: true,
    async run({ params, inputs, key, env }: {
      params: z.infer<typeof Params>;
      inputs: Record<string, unknown>;
      key: string;
      env: E;
    }) {
      const own = params as z.infer<typeof EngineCommon> & z.infer<z.ZodObject<S>>;
      const plan = decl.history(own, inputs, env);
      if ("invalid" in plan) {
        const usage = { calls: 0, input_tokens: 0, output_tokens: 0 };
        const window = { node: key, ok: false, messages: null, reason: plan.invalid, usage };
        return { outputs: { window }, status: "invalid" as const, reason: plan.invalid };
      }
      return await runEngineStage(
        own.engine,
        plan.name,
        env,
        plan.messages,
        plan.budget,
        env.counter,
        key,
      );
    },
  });
}

/** A stage call as a suite plans it (the label given apart where the pipeline makes it). */
export interface PlannedCall {
  label: string;
  params: Record<string, unknown>;
  inputs: Record<string, string>;
  values?: Record<string, unknown>;
}

/** One condition (unit, generation, method) as the suite plans it at one ceiling. */
export interface PlannedCondition {
  /** The context node's call (its compression nodes already run). */
  context: PlannedCall;
  /** False where no ceiling binds (Full): answers and scores are labelled without the ceiling, checked against none. */
  bound: boolean;
  /** The row id before ` ans=<a>` (`q=… method=… gen=…`, `kind=… gen=…`). */
  row: string;
  /** The answer node's params besides `answer_index` and `chat_model`. */
  answer: Record<string, unknown>;
}

/** One ceiling of a run: its rows (as aggregate inputs) and the models that answered each method's calls. */
export class CeilingRun {
  readonly aggregateInputs: Record<string, string> = {};
  readonly aggregateValues: Record<string, unknown> = {};
  readonly #tally = new ModelTally();
  readonly #roles = new Map<string, ModelRole[]>();

  constructor(
    readonly cap: number,
    readonly index: number,
    /** ` cap=N` in a ceiling sweep, else empty: the label suffix of the nodes that depend on the ceiling. */
    readonly tag: string,
    readonly executor: Executor,
  ) {}

  /** Counts the models that answered `node`'s calls (of `endpoint`, an engine's) for `method` as `role`. */
  async count(method: string, role: ModelRole, node: NodeOutcome, endpoint?: "chat" | "systemone") {
    const roles = this.#roles.get(method) ?? this.#roles.set(method, ["chat"]).get(method)!;
    if (!roles.includes(role) && endpoint === undefined) roles.push(role);
    this.#tally.add(method, role, await this.executor.answeredBy(node, endpoint));
  }

  /** Per method, the models that answered its calls per role (`roles`: those it uses even without calls). */
  answeringModels(
    methods: readonly string[],
    description: { chat_model: string; decision_model: string },
    roles: (method: string) => ModelRole[] = () => [],
  ): Record<string, AnsweringModels> {
    const requested = requestedModels(description);
    return Object.fromEntries(methods.map((m) => {
      const used = [...new Set<ModelRole>(["chat", ...(this.#roles.get(m) ?? []), ...roles(m)])];
      return [m, this.#tally.of(m, requested, used)];
    }));
  }
}

/**
 * A suite's answer task: its units (questions; the sweep's one trajectory), how each condition's context is
 * planned, how an answer is scored and how a unit's rows reach the aggregate. {@link runAnswerTask} runs it.
 */
export interface AnswerTask<U, L, F> {
  stages: { context: AnyStageDef; answer: AnswerStageDef; score: AnyStageDef; rows?: AnyStageDef };
  /** Conditions (generation, method) per unit at one ceiling, for the progress plan. */
  conditions: number;
  caps: readonly number[];
  methods: readonly string[];
  generations: readonly number[];
  units: readonly U[];
  /** Units in flight at once. */
  window: number;
  answers: number;
  answerMaxTokens: number;
  models: ModelSetup;
  /** The env of the context and score stages. */
  env: unknown;
  /** Rows name their context by hash (a `context:<row>` part). */
  rowContext?: boolean;
  /** A unit as its conditions read it (hotpot: the question and gold read back from the store). */
  open(unit: U): Promise<L>;
  /** The nodes of one generation that no ceiling changes (rankings; the sweep's summary and engines). */
  freeze(unit: L, gen: number): Promise<F>;
  /** Runs the condition's compression nodes at this ceiling and plans its context; null: no such condition. */
  condition(
    run: CeilingRun,
    unit: L,
    gen: number,
    method: string,
    frozen: F,
  ): Promise<PlannedCondition | null>;
  /** Called with each context node (the report's explorer reads them). */
  contextDone?(
    run: CeilingRun,
    node: NodeResult<Record<string, unknown>>,
    condition: { gen: number; method: string; bound: boolean },
  ): void;
  /** The score node's params, inputs and values. */
  score(
    unit: L,
    answer: { node: NodeOutcome; answer: StoredAnswer | null; valid: boolean },
    context: NodeResult<Record<string, unknown>>,
  ): Omit<PlannedCall, "label">;

  /** Puts a unit's rows (its answer rows' parts) into the ceiling's aggregate inputs (default: as they are). */
  rows?(run: CeilingRun, unit: L, parts: Inputs): Promise<void>;
}

/**
 * Runs every unit, generation, method and answer at every ceiling: freeze → condition (compression, context)
 * → answers → scores → rows. The ceilings share the executor, so a node that does not depend on the ceiling
 * (Full's context, answers and scores) runs once by key.
 */
export async function runAnswerTask<U, L, F>(
  { executor, progress }: RunContext,
  task: AnswerTask<U, L, F>,
  check: CheckOnlyComparison,
): Promise<CeilingRun[]> {
  const sweep = task.caps.length > 1;
  const runs = task.caps.map((cap, i) => new CeilingRun(cap, i, sweep ? ` cap=${cap}` : "", executor));
  const n = task.units.length * task.caps.length;
  progress.plan(task.stages.context.name, n * task.conditions);
  progress.plan(task.stages.answer.name, n * task.conditions * task.answers);
  progress.plan(task.stages.score.name, n * task.conditions * task.answers);
  if (task.stages.rows && !executor.checkOnly) progress.plan(task.stages.rows.name, n);
  const window = pLimit(task.window);
  await Promise.all(task.units.map((given) =>
    window(async () => {
      const unit = await task.open(given);
      const frozen = await Promise.all(task.generations.map((gen) => task.freeze(unit, gen)));
      await Promise.all(runs.map(async (run) => {
        const parts: Inputs = { inputs: {}, values: {} };
        await Promise.all(task.generations.flatMap((gen, g) =>
          task.methods.map(async (method) => {
            const planned = await task.condition(run, unit, gen, method, frozen[g]);
            if (planned !== null) await answerCondition(run, task, unit, gen, method, planned, parts, check);
          })
        ));
        // Check-only compares answer inputs and publishes nothing: no rows.
        if (executor.checkOnly) return;
        if (task.rows) await task.rows(run, unit, parts);
        else {
          Object.assign(run.aggregateInputs, parts.inputs);
          Object.assign(run.aggregateValues, parts.values);
        }
      }));
    })
  ));
  return runs;
}

async function answerCondition<L>(
  run: CeilingRun,
  task: AnswerTask<unknown, L, unknown>,
  unit: L,
  gen: number,
  method: string,
  planned: PlannedCondition,
  parts: Inputs,
  check: CheckOnlyComparison,
): Promise<void> {
  const { executor } = run;
  const contextNode = await executor.runStage(task.stages.context, planned.context, task.env);
  const contextHash = contextNode.node.outputs.messages;
  const tag = planned.bound ? run.tag : "";
  await Promise.all(Array.from({ length: task.answers }, async (_, a) => {
    const row = `${planned.row} ans=${a}`;
    const label = `answer ${row}${tag}`;
    const answered = await answerStage(executor, {
      stage: task.stages.answer,
      label,
      params: { ...planned.answer, answer_index: a, chat_model: task.models.description.chat_model },
      context: contextNode as NodeResult<{ messages: ChatMessage[] | null }>,
      chat: task.models.chat,
      maxTokens: task.answerMaxTokens,
      inputCap: planned.bound ? run.cap : null,
    });
    check.record(executor, label, contextHash);
    await run.count(method, "chat", answered.node.node);
    const score = await executor.runStage(task.stages.score, {
      label: `score ${row}${tag}`,
      ...task.score(unit, { ...answered, node: answered.node.node }, contextNode),
    }, task.env);
    const { node } = answered;
    const row_parts: [string, string, unknown][] = [
      ["status", node.node.outputs.status, node.outputs.status],
      ["answer", node.node.outputs.answer, answered.answer],
      ["score", score.node.outputs.score, score.outputs.score],
      ["info", contextNode.node.outputs.info, contextNode.outputs.info],
    ];
    if (task.rowContext) row_parts.push(["context", contextHash, contextNode.outputs.messages]);
    for (const [part, hash, value] of row_parts) {
      parts.inputs[rowInput(part, row)] = hash;
      parts.values[rowInput(part, row)] = value;
    }
  }));
  task.contextDone?.(run, contextNode, { gen, method, bound: planned.bound });
}

/** The stages that publish a run: the aggregate (per ceiling), the ceilings (a ceiling sweep) and the report. */
export interface PublishStages {
  aggregate: AnyStageDef;
  ceilings: AnyStageDef;
  report: AnyStageDef;
}

/**
 * Runs the aggregate of every ceiling, in a ceiling sweep the ceilings node (every ceiling's rows and
 * aggregates, the primary's first), and the report; returns the published files' blobs and the node whose
 * `results.json` is published.
 */
export async function publishAnswerRuns(
  { executor, progress }: RunContext,
  stages: PublishStages,
  runs: readonly CeilingRun[],
  env: unknown,
  aggregate: (run: CeilingRun) => Omit<PlannedCall, "label">,
  report: (
    aggregate: NodeResult<Record<string, unknown>>,
    ceilings: Inputs,
  ) => Promise<Omit<PlannedCall, "label">>,
): Promise<{ published: NodeResult<Record<string, unknown>>; files: Record<string, string> }> {
  const caps = runs.map((r) => r.cap);
  const sweep = caps.length > 1;
  progress.plan(stages.aggregate.name, caps.length);
  if (sweep) progress.plan(stages.ceilings.name, 1);
  progress.plan(stages.report.name, 1);
  heapBudget.collect(); // the answering phase's garbage, not under the aggregate's peak
  const aggregates = await Promise.all(runs.map((run) =>
    executor.runStage(stages.aggregate, {
      label: sweep ? `aggregate cap=${run.cap}` : "aggregate",
      ...aggregate(run),
    }, env)
  ));
  const ceilings = sweep ? ceilingInputs(caps, aggregates) : { inputs: {}, values: {} };
  const ceilingsNode = sweep
    ? await executor.runStage(stages.ceilings, {
      label: "ceilings",
      params: { caps },
      inputs: ceilings.inputs,
    }, env)
    : null;
  heapBudget.collect(); // the aggregate's, before the report's peak
  const reportNode = await executor.runStage(stages.report, {
    label: "report",
    ...await report(aggregates[0], ceilings),
  }, env);
  const published = ceilingsNode ?? aggregates[0];
  const files: Record<string, string> = {};
  for (const name of ["results.json", "aggregate.json"]) files[name] = published.node.outputs[name];
  for (const name of ["REPORT.md", "report.html", "stats.json"]) files[name] = reportNode.node.outputs[name];
  return { published, files };
}

/** What a suite's replay over a merged run gives: its published files, its protocol.json and other files. */
export interface MergedReplay {
  files: Record<string, string>;
  protocol: Record<string, unknown>;
  write?: Record<string, Uint8Array>;
}

/**
 * How a run merged from a suite's shards is completed: the shards' aggregates, ceilings, reports and header
 * nodes (each covering its part) are left out of the join, and the suite's run replayed over the merged nodes
 * (no model is called) publishes as a whole run does.
 */
export function answerMerge(
  stages: PublishStages,
  replay: (
    run: RunDir,
    context: RunContext,
    counter: TokenCounter,
    analysis: ReportAnalysisOptions,
  ) => Promise<
    MergedReplay
  >,
): SuiteMerge {
  const skip = [stages.aggregate, stages.ceilings, stages.report, publishedJsonStage, runHeaderStage];
  return {
    skipStages: new Set(skip.map((s) => s.name)),
    async publish(run) {
      const context = await replayContext(run);
      const counter = await shardCounter(run);
      const recorded = shardOptions(run);
      const prices = await readPrices({
        price: recorded.price as { model: string; input: number; output: number }[] | undefined,
        prices: recorded.prices as string | undefined,
      });
      const bootstrap = recorded.bootstrap as number | undefined;
      const { files, protocol, write } = await replay(run, context, counter, { bootstrap, prices });
      // A shard's protocol.json node hangs below its aggregate: it is published again below the merged one.
      const below = { "aggregate.json": files["aggregate.json"] };
      const header = await bindRunHeader(context.executor, run, below);
      await publishJsonFile(context.executor, run, "protocol.json", protocol, { ...below, ...header });
      for (const [name, bytes] of Object.entries(write ?? {})) await run.writeFile(name, bytes);
      for (const [name, hash] of Object.entries(files)) await run.publish(name, hash);
    },
  };
}

function missingNode(what: string): never {
  throw new Error(`merge: the shards lack a node (a replay asked the ${what}); the merged run is incomplete`);
}

/** Models that fail on any call: a replay takes every model stage from the merged journal. */
export function replayModels(description: ModelSetup["description"]): ModelSetup {
  const chat: ChatModel = { model: description.chat_model, complete: () => missingNode("chat model") };
  const decision: DecisionModel = {
    model: description.decision_model,
    ask: () => missingNode("decision model"),
  };
  return { chat, decision, description, secrets: [], close: () => Promise.resolve() };
}

/** A run context over the merged run: every journaled node is taken as resumed. */
export async function replayContext(run: RunDir): Promise<RunContext> {
  const progress = new Progress(run.header.suite, { quiet: true });
  return { run, executor: await Executor.overJournal(run, { progress }), progress, resumed: true };
}

/** The options the first shard was started with (recorded by `merge` in the merged run's invocation). */
export function shardOptions(run: RunDir): Record<string, unknown> {
  const options = (run.header.invocation.options ?? {}) as { shard_options?: Record<string, unknown> };
  return options.shard_options ?? {};
}

/** The tokenizer the shards used, checked against the header's hash. */
export async function shardCounter(run: RunDir) {
  const dir = shardOptions(run).tokenizer as string | undefined;
  const counter = await loadTokenCounter(dir);
  if (run.header.tokenizer !== null && counter.hash !== run.header.tokenizer.hash) {
    const { name, hash } = run.header.tokenizer;
    const where = dir === undefined ? "" : ` at ${dir}`;
    throw new UsageError(
      `merge: the shards' tokenizer ${name} (${hash.slice(0, 12)}) is not available here${where}`,
    );
  }
  return counter;
}

/** An answer as stored in its node's `answer` output. */
export const StoredAnswerSchema = z.object({
  content: z.string(),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  model: z.string(),
  finish_reason: z.string(),
});
/** An answer as stored in its node's `answer` output. */
export type StoredAnswer = z.infer<typeof StoredAnswerSchema>;

/**
 * An answer node's `status` output: valid or not, why, with the node's key and params (so every answer node has
 * an output of its own even when two answers' texts are equal).
 */
export const AnswerStatusSchema = z.object({
  node: z.string(),
  status: z.enum(["ok", "invalid"]),
  reason: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
});

type AnswerStatus = z.infer<typeof AnswerStatusSchema>;
/** Fast one-sided check of a stored answer (or null). */
export const isPlainAnswer = plainCheck(StoredAnswerSchema.nullable());
/** Fast one-sided check of a stored answer status. */
export const isPlainAnswerStatus = plainCheck(AnswerStatusSchema);

/** One answer request (`params`: key params only, no transport setting). */
interface AnswerRequest {
  stage: AnswerStageDef;
  label: string;
  params: Record<string, unknown>;
  /** The context node: its `messages` output is the answer input. */
  context: NodeResult<{ messages: ChatMessage[] | null }>;
  chat: ChatModel;
  maxTokens: number;
  /** The ceiling the provider's input count is checked against; null when the condition may exceed it. */
  inputCap: number | null;
}

/** What an answer body needs besides its input: the chat model, and why the context is invalid (if it is). */
interface AnswerEnv {
  chat: ChatModel;
  contextReason: string | null;
}

const AnswerParams = z.object({ max_tokens: z.number().int(), input_cap: z.number().int().nullable() })
  .loose();

/** The answer stage named `name` (each suite declares its own, e.g. `<suite>-answer`, in its `stages/`). */
export function answerStageDef(name: string) {
  return defineStage({
    name,
    version: 2, // 2: a `status` output carrying the node key
    doc:
      "One answer of the chat model to a rendered answer input, its input tokens checked against the ceiling.",
    params: AnswerParams,
    inputs: ["context"],
    outputs: {
      answer: {
        schema: StoredAnswerSchema.nullable(),
        plain: isPlainAnswer,
        doc: "the model's answer and the provider's usage",
      },
      status: {
        schema: AnswerStatusSchema,
        plain: isPlainAnswerStatus,
        doc: "valid or not, why, and the node's key and params",
      },
    },
    provider: true,
    reuseFrozen: false,
    async run({ params, inputs, key, env }: {
      params: z.infer<typeof AnswerParams>;
      inputs: Record<string, unknown>;
      key: string;
      env: AnswerEnv;
    }) {
      const outcome = await answerOutcome(params, inputs.context as ChatMessage[] | null, env);
      const status: AnswerStatus = {
        node: key,
        status: outcome.status ?? "ok",
        reason: outcome.reason ?? null,
        params,
      };
      return { ...outcome, outputs: { answer: outcome.answer, status } };
    },
  });
}

async function answerOutcome(
  params: { max_tokens: number; input_cap: number | null },
  messages: ChatMessage[] | null,
  env: AnswerEnv,
): Promise<
  { answer: StoredAnswer | null; status?: "ok" | "invalid"; reason?: string; requests?: CallRecord[] }
> {
  if (env.contextReason !== null || messages === null) {
    return { answer: null, status: "invalid", reason: env.contextReason ?? "context invalid" };
  }
  const result = await env.chat.complete({ messages, max_tokens: params.max_tokens });
  if (!result.ok) return { answer: null, requests: [result.record], status: "invalid", reason: result.error };
  const answer: StoredAnswer = {
    content: result.content,
    usage: result.usage,
    model: result.model,
    finish_reason: result.finish_reason,
  };
  if (params.input_cap !== null && result.usage.prompt_tokens > params.input_cap) {
    return {
      answer,
      requests: [result.record],
      status: "invalid",
      reason:
        `provider counted ${result.usage.prompt_tokens} input tokens, over the ${params.input_cap} ceiling`,
    };
  }
  return { answer, requests: [result.record] };
}

/** An answer stage's declaration. */
export type AnswerStageDef = ReturnType<typeof answerStageDef>;

/** Runs (or, in check-only mode, skips) one answer; never reused from a frozen run. */
export async function answerStage(
  executor: Executor,
  request: AnswerRequest,
): Promise<
  {
    node: NodeResult<{ answer: StoredAnswer | null; status: AnswerStatus }>;
    answer: StoredAnswer | null;
    valid: boolean;
  }
> {
  const contextNode = request.context;
  const messages = contextNode.outputs.messages;
  const contextValid = contextNode.node.status === "ok" && messages !== null;
  const node = await executor.runStage(request.stage, {
    label: request.label,
    params: { ...request.params, max_tokens: request.maxTokens, input_cap: request.inputCap },
    inputs: { context: contextNode.node.outputs.messages },
    values: { context: messages },
    provider: contextValid,
  }, {
    chat: request.chat,
    contextReason: contextValid ? null : contextNode.node.reason ?? "context invalid",
  });
  const stored = node.outputs.answer;
  return { node, answer: stored, valid: node.node.status === "ok" && stored !== null };
}

type RowParams = Record<string, string> & { generation: number; answer_index: number };
const RowAnswerSchema = StoredAnswerSchema.nullable();

/**
 * A row's stored answer and status (outputs this program wrote) taken as read when the derived checks accept
 * both, as the schemas would parse them member for member (null leaves both to the schemas).
 */
export function plainAnswerRow(
  answer: unknown,
  status: unknown,
): { answer: StoredAnswer | null; status: AnswerStatus } | null {
  return isPlainAnswer(answer) && isPlainAnswerStatus(status) ? { answer, status } : null;
}

/**
 * Every answer row of a rows or aggregate node's inputs (`status:<row>`, `answer:<row>`, `score:<row>`,
 * `info:<row>`) as `build` makes it, sorted by method (row field `field`, in `methods`' order), generation, answer.
 */
export function answerRows<S, I, R extends { generation: number; answer_index: number }>(
  inputs: Record<string, unknown>,
  schemas: { score: z.ZodType<S>; info: z.ZodType<I> },
  order: { field: string; methods: readonly string[] },
  build: (r: {
    row: string;
    status: AnswerStatus;
    answer: StoredAnswer | null;
    score: S;
    info: I;
    valid: boolean;
    params: RowParams;
  }) => R,
): R[] {
  const rank = new Map<unknown, number>(order.methods.map((m, i) => [m, i]));
  const of = (r: R) => rank.get((r as Record<string, unknown>)[order.field])!;
  return rowIds(inputs).map((row) => {
    const storedStatus = inputs[rowInput("status", row)];
    const storedAnswer = inputs[rowInput("answer", row)];
    const { status, answer } = plainAnswerRow(storedAnswer, storedStatus) ?? {
      status: AnswerStatusSchema.parse(storedStatus),
      answer: RowAnswerSchema.parse(storedAnswer),
    };
    const score = schemas.score.parse(inputs[rowInput("score", row)]);
    const info = schemas.info.parse(inputs[rowInput("info", row)]);
    const valid = status.status === "ok" && answer !== null;
    return build({ row, status, answer, score, info, valid, params: status.params as RowParams });
  }).sort((a, b) => of(a) - of(b) || a.generation - b.generation || a.answer_index - b.answer_index);
}

/** Collects the check-only comparison of every answer input. */
export class CheckOnlyComparison {
  readonly #report: CheckOnlyReport = { compared: 0, differing: [], missing: [] };

  /** Compares the answer input of `label` with the frozen run's (no-op outside check-only mode). */
  record(executor: Executor, label: string, contextHash: string | undefined): void {
    if (!executor.checkOnly || !executor.frozen) return;
    const frozenNode = executor.frozen.byLabel(label);
    if (!frozenNode) this.#report.missing.push(label);
    else {
      this.#report.compared++;
      if (frozenNode.inputs.context !== contextHash) this.#report.differing.push(label);
    }
  }

  /** The report with sorted lists (null outside check-only mode). */
  report(executor: Executor): CheckOnlyReport | null {
    if (!executor.checkOnly) return null;
    return {
      compared: this.#report.compared,
      differing: [...this.#report.differing].sort(),
      missing: [...this.#report.missing].sort(),
    };
  }
}
