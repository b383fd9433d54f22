/**
 * `sweep run` over the run store. Per generation a `sweep-summary` node (chat model) and a `sweep-rank` node
 * (decision model) freeze S and the ranking; neither sees the follow-up or the gold. Pure `sweep-context`
 * nodes render full, S and S + Top N; an over-budget context is recorded and scored zero, never shrunk.
 * `sweep-answer` nodes (always afresh) ask the follow-up; `sweep-score` nodes run the ten fact checks and the
 * six sandboxed repair checks (identical answers are scored once, by key).
 *
 * @module
 */
import type { NodeOutcome } from "../../pipeline/executor.ts";
import {
  type AnsweringModels,
  type ModelRole,
  ModelTally,
  requestedModels,
} from "../../core/answering_models.ts";
import { addUsage, emptyUsage, type Usage } from "../../core/usage.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import { answerStage, CheckOnlyComparison, type CheckOnlyReport } from "../answer_stage.ts";
import { rowInput, sortedRecord } from "../published.ts";
import { contextKinds } from "./contexts.ts";
import type { SweepFixture } from "./fixture.ts";
import type { SweepResultRow } from "./rows.ts";
import { sweepTrajectoryStage } from "./stages/trajectory.ts";
import { sweepEngineStage } from "./stages/engine.ts";
import { engineReportParams } from "../method_selection.ts";
import type { LoopbackProxy } from "../../models/loopback_proxy.ts";
import { contextNeeds, declaredMethod } from "../../methods/registry.ts";
import { sweepContextStage } from "./stages/context.ts";
import { sweepRankStage, sweepSummaryStage } from "./stages/compress.ts";
import { sweepScoreStage } from "./stages/score.ts";
import { sweepAggregateStage } from "./stages/aggregate.ts";
import { sweepReportStage } from "./stages/report.ts";
import { sweepCeilingInputs, sweepCeilingsStage } from "./stages/ceilings.ts";
import type { SweepStageEnv } from "./stages/env.ts";
import type { Executor, NodeResult } from "../../pipeline/executor.ts";
import { generationInShard } from "../../pipeline/shard.ts";
import { sweepContextInputName } from "./explorer.ts";
import { DEFAULT_RESAMPLES } from "../../analysis/bootstrap.ts";
import { runCost } from "../../analysis/cost.ts";
import type { ReportAnalysisOptions } from "../../analysis/report_inputs.ts";
import { sweepAnswerStage } from "./stages/answer.ts";
import { parseJson } from "../../core/json_read.ts";

export type { SweepResultRow } from "./rows.ts";
export { DEFAULT_SWEEP_RUN, type SweepRunOptions } from "./run_options.ts";
import type { SweepRunOptions } from "./run_options.ts";

/** What the sweep run returns. */
export interface SweepRunOutcome {
  rows: SweepResultRow[];
  compressionUsage: Usage;
  reusedCompression: number;
  checkOnly: CheckOnlyReport | null;
  /** Published file name → the node output blob that is its exact bytes (empty in check-only mode). */
  files: Record<string, string>;
}

/** Runs the sweep. */
export async function runSweep(
  context: RunContext,
  fixture: SweepFixture,
  options: SweepRunOptions,
  models: ModelSetup,
  counter: TokenCounter,
  analysis: ReportAnalysisOptions = {},
  transport: { endpoint?: LoopbackProxy } = {},
): Promise<SweepRunOutcome> {
  const { executor, run, progress } = context;
  const trajectoryHash = run.header.sources["trajectory"];
  const extra = options.methods ?? [];
  const kinds = [...contextKinds(options.topN), ...extra];
  const engines = options.engines ?? [];
  // A shard (`--shard K/N`, recorded in the header) runs only its generations (g in part g mod N); every key
  // stays the unsharded run's. A merged run's header has no shard: its replay covers every generation.
  const generations = Array.from({ length: options.compressions }, (_, g) => g)
    .filter((g) => generationInShard(g, run.header.shard));
  const G = generations.length;
  const caps = options.inputCaps ?? [options.inputCap];
  const sweep = caps.length > 1;
  const common = { reserve: options.reserve, tokenizer: counter.hash, fixture: fixture.hash };
  const env = { counter, fixture };
  const modelEnv = { ...env, chat: models.chat, decision: models.decision, endpoint: transport.endpoint };
  progress.plan(sweepTrajectoryStage.name, 1);
  progress.plan(sweepSummaryStage.name, G);
  progress.plan(sweepRankStage.name, G);
  // A deterministic engine (no model calls) is compacted and answered in the first generation only.
  const conditions = G * kinds.length -
    engines.filter((e) => e.deterministic).length * (G - (generations.includes(0) ? 1 : 0));
  if (engines.length > 0) {
    progress.plan(sweepEngineStage.name, conditions - G * (kinds.length - engines.length));
  }
  progress.plan(sweepContextStage.name, conditions);
  progress.plan(sweepAnswerStage.name, conditions * options.answers);
  progress.plan(sweepScoreStage.name, conditions * options.answers);
  const usage = emptyUsage();
  let reusedCompression = 0;
  const check = new CheckOnlyComparison();

  // The trajectory as a stage, so every later node descends from it in the DAG.
  const trajectoryNode = await executor.runStage(sweepTrajectoryStage, {
    label: "trajectory",
    params: { fixture: fixture.hash },
    inputs: { file: trajectoryHash },
    values: { file: null },
  }, env);
  const unitsHash = trajectoryNode.node.outputs.units;
  const units = trajectoryNode.outputs.units;

  // 1. Freeze S and the ranking of every generation before any answer.
  const frozen = await Promise.all(generations.map(async (gen) => {
    const [summaryNode, rankNode] = await Promise.all([
      executor.runStage(sweepSummaryStage, {
        label: `summary gen=${gen}`,
        params: {
          generation: gen,
          allowance: options.summaryAllowance,
          ...common,
          chat_model: models.description.chat_model,
          max_retries: options.summaryRetries,
        },
        inputs: { units: unitsHash },
        values: { units },
      }, modelEnv),
      executor.runStage(sweepRankStage, {
        label: `rank gen=${gen}`,
        params: { generation: gen, fixture: fixture.hash, decision_model: models.description.decision_model },
        inputs: { units: unitsHash },
        values: { units },
      }, modelEnv),
    ]);
    const windows: Record<string, NodeResult<{ window: unknown }>> = {};
    await Promise.all(
      engines.filter((e) => !e.deterministic || gen === 0).map(async (e) => {
        windows[e.name] = await executor.runStage(sweepEngineStage, {
          label: `engine kind=${e.name} gen=${gen}`,
          params: {
            kind: e.name,
            engine: e.spec,
            adapters: e.adapters,
            generation: gen,
            input_cap: caps[0],
            ...common,
            chat_model: models.description.chat_model,
            decision_model: models.description.decision_model,
          },
          inputs: { units: unitsHash },
          values: { units },
        }, modelEnv);
      }),
    );
    for (const node of [summaryNode, rankNode, ...Object.values(windows)]) {
      if (node.node.reused_from !== undefined) {
        reusedCompression++;
        continue; // its calls were made, and are counted, by the frozen run
      }
      addUsage(usage, node.node.usage);
    }
    return { gen, summaryNode, rankNode, windows };
  }));

  // 2. Contexts, answers, scores, at every ceiling. Nodes that do not depend on the ceiling (the trajectory,
  // summaries, rankings; Full's context, answers and scores) run once: a ceiling sweep shares them by key.
  const runs = await Promise.all(caps.map((cap, i) => {
    if (i > 0) {
      const compressed = kinds.length - 1;
      progress.plan(sweepContextStage.name, G * compressed);
      progress.plan(sweepAnswerStage.name, G * compressed * options.answers);
      progress.plan(sweepScoreStage.name, G * compressed * options.answers);
    }
    return runCeiling(executor, check, frozen, {
      cap,
      primaryCap: caps[0],
      tag: sweep ? ` cap=${cap}` : "",
      kinds,
      options,
      models,
      common,
      env,
      unitsHash,
      units,
    });
  }));
  const checkOnly = check.report(executor);
  // The frozen run the compression nodes came from: this run's, or (a run merged from shards made with
  // --frozen-run) the one the merged nodes record.
  const frozenManifest = executor.frozen?.manifestHash ??
    frozen.flatMap((f) => [f.summaryNode, f.rankNode]).find((n) => n.node.reused_from?.manifest)?.node
      .reused_from?.manifest;
  if (checkOnly) return { rows: [], compressionUsage: usage, reusedCompression, checkOnly, files: {} };

  // 3. Every published number is a node output: the aggregate takes every answer row's blobs as inputs.
  progress.plan(sweepAggregateStage.name, caps.length);
  if (sweep) progress.plan(sweepCeilingsStage.name, 1);
  progress.plan(sweepReportStage.name, 1);
  const aggregates = await Promise.all(runs.map((r, i) =>
    executor.runStage(sweepAggregateStage, {
      label: sweep ? `aggregate cap=${caps[i]}` : "aggregate",
      params: {
        top_n: options.topN,
        ...(extra.length > 0 ? { methods: extra } : {}),
        answering_models: r.answeringModels,
      },
      inputs: sortedRecord(r.aggregateInputs),
      values: r.aggregateValues,
    }, env)
  ));
  const aggregateNode = aggregates[0];
  // A sweep publishes every ceiling's rows and aggregates (the primary ceiling's first), from one node.
  const ceilingsNode = sweep
    ? await executor.runStage(sweepCeilingsStage, {
      label: "ceilings",
      params: { caps },
      ...sweepCeilingInputs(caps, aggregates),
    }, env)
    : null;
  const ceilingParts = sweep ? sweepCeilingInputs(caps, aggregates) : { inputs: {}, values: {} };
  // Every context the rows were answered from, by generation, kind (and ceiling), for the explorer.
  const contextParts = {
    inputs: sortedRecord(Object.assign({}, ...runs.map((r) => r.contextInputs))),
    values: Object.assign({}, ...runs.map((r) => r.contextValues)),
  };
  const reportNode = await executor.runStage(sweepReportStage, {
    label: "report",
    params: {
      fixture: {
        name: fixture.name,
        hash: fixture.hash,
        units: fixture.units.length,
        facts: fixture.facts.length,
      },
      models: models.description,
      tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
      options,
      compression_usage: usage,
      reused_compression: reusedCompression,
      frozen_run: frozenManifest ? `the frozen run with manifest sha256 ${frozenManifest}` : null,
      bootstrap: analysis.bootstrap ?? DEFAULT_RESAMPLES,
      cost: analysis.prices ? await runCost(run.readNodes(), analysis.prices, kinds) : null,
      ...(sweep ? { ceilings: caps } : {}),
      ...engineReportParams(options.engines),
    },
    inputs: {
      aggregate: aggregateNode.node.outputs["aggregate.json"],
      results: aggregateNode.node.outputs["results.json"],
      ...ceilingParts.inputs,
      ...contextParts.inputs,
    },
    values: {
      aggregate: aggregateNode.outputs["aggregate.json"],
      results: aggregateNode.outputs["results.json"],
      ...ceilingParts.values,
      ...contextParts.values,
    },
  }, env);
  const published = ceilingsNode ?? aggregateNode;
  return {
    rows: parseJson(published.outputs["results.json"]) as SweepResultRow[],
    compressionUsage: usage,
    reusedCompression,
    checkOnly: null,
    files: {
      "results.json": published.node.outputs["results.json"],
      "aggregate.json": published.node.outputs["aggregate.json"],
      "REPORT.md": reportNode.node.outputs["REPORT.md"],
      "report.html": reportNode.node.outputs["report.html"],
      "stats.json": reportNode.node.outputs["stats.json"],
    },
  };
}

/** One ceiling's answer rows, as aggregate inputs, and its contexts, as report inputs (for the explorer). */
interface CeilingRun {
  aggregateInputs: Record<string, string>;
  aggregateValues: Record<string, unknown>;
  contextInputs: Record<string, string>;
  contextValues: Record<string, unknown>;
  /** Per context kind, the models that answered its calls, per role, beside the requested names. */
  answeringModels: Record<string, AnsweringModels>;
}

/** What {@link runCeiling} needs besides the executor. */
interface CeilingRequest {
  cap: number;
  /** The primary ceiling: Full's context is counted against it at every ceiling (one node, shared). */
  primaryCap: number;
  /** The label suffix of the nodes that depend on the ceiling (` cap=N` in a sweep, else empty). */
  tag: string;
  kinds: string[];
  options: SweepRunOptions;
  models: ModelSetup;
  common: { reserve: number; tokenizer: string; fixture: string };
  env: SweepStageEnv;
  unitsHash: string;
  units: unknown;
}

/** One generation's frozen summary and ranking nodes. */
interface FrozenGeneration {
  gen: number;
  summaryNode: NodeResult<{ summary: unknown }>;
  rankNode: NodeResult<{ ranking: unknown }>;
  /** Engine name → its window node in this generation (a deterministic engine: the first generation only). */
  windows: Record<string, NodeResult<{ window: unknown }>>;
}

/**
 * Contexts, answers and scores of every generation and context kind at one ceiling. In a ceiling sweep the
 * ceilings share the executor: Full's context (counted against the primary ceiling, since no ceiling limits
 * it), answers and scores have the same keys at every ceiling and run once; the other kinds' contexts,
 * answers and scores are per ceiling (their keys hold the ceiling; their labels end in ` cap=N`).
 */
async function runCeiling(
  executor: Executor,
  check: CheckOnlyComparison,
  frozen: readonly FrozenGeneration[],
  request: CeilingRequest,
): Promise<CeilingRun> {
  const { options, models, common, env, unitsHash, units } = request;
  /** The aggregate's inputs: per answer row its status, answer, score and context count. */
  const aggregateInputs: Record<string, string> = {};
  const aggregateValues: Record<string, unknown> = {};
  const contextInputs: Record<string, string> = {};
  const contextValues: Record<string, unknown> = {};
  const engineNames = new Set((options.engines ?? []).map((e) => e.name));
  // The answering models of every provider node each kind uses (reused ones too: their outputs are used).
  const tally = new ModelTally();
  const roles = new Map<string, ModelRole[]>(request.kinds.map((kind) => [kind, ["chat"]]));
  const countModels = async (
    kind: string,
    role: ModelRole,
    node: NodeOutcome,
    endpoint?: "chat" | "systemone",
  ) => {
    if (!roles.get(kind)!.includes(role) && endpoint === undefined) roles.get(kind)!.push(role);
    tally.add(kind, role, await executor.answeredBy(node, endpoint));
  };
  await Promise.all(frozen.map(async ({ gen, summaryNode, rankNode, windows }) => {
    // A deterministic engine has a window in the first generation only: no conditions in the others.
    const kinds = request.kinds.filter((kind) => !engineNames.has(kind) || windows[kind] !== undefined);
    await Promise.all(kinds.map(async (kind) => {
      const n = kind.startsWith("S+Top") ? Number(kind.slice(5)) : 0;
      const tag = kind === "full" ? "" : request.tag;
      const cap = kind === "full" ? request.primaryCap : request.cap;
      const inputs: Record<string, string> = { units: unitsHash };
      const values: Record<string, unknown> = { units };
      const builtIn = kind === "full" || kind === "S" || kind.startsWith("S+Top");
      const declared = builtIn || engineNames.has(kind) ? undefined : declaredMethod(kind);
      const needs = declared ? contextNeeds(declared) : [];
      if ((builtIn && kind !== "full") || needs.includes("summary")) {
        inputs.summary = summaryNode.node.outputs.summary;
        values.summary = summaryNode.outputs.summary;
        await countModels(kind, "summarizer", summaryNode.node);
      }
      if (n > 0 || needs.includes("ranking")) {
        inputs.ranking = rankNode.node.outputs.ranking;
        values.ranking = rankNode.outputs.ranking;
        await countModels(kind, "decision", rankNode.node);
      }
      if (engineNames.has(kind)) {
        inputs.window = windows[kind].node.outputs.window;
        values.window = windows[kind].outputs.window;
        // An engine's own model calls: its summarizer (chat endpoint) and its rankings (System One).
        await countModels(kind, "summarizer", windows[kind].node, "chat");
        await countModels(kind, "decision", windows[kind].node, "systemone");
      }
      const contextNode = await executor.runStage(sweepContextStage, {
        label: `context kind=${kind}${kind === "full" ? "" : ` gen=${gen}`}${tag}`,
        params: { kind, top_n: n, input_cap: cap, ...common },
        inputs,
        values,
      }, env);
      const contextHash = contextNode.node.outputs.messages;
      for (const part of ["context", "context-info"] as const) {
        const name = sweepContextInputName(part, kind, gen, tag === "" ? null : request.cap);
        const output = part === "context" ? "messages" : "info";
        contextInputs[name] = contextNode.node.outputs[output];
        contextValues[name] = contextNode.outputs[output];
      }
      await Promise.all(Array.from({ length: options.answers }, async (_, a) => {
        const row = `kind=${kind} gen=${gen} ans=${a}`;
        const label = `answer ${row}${tag}`;
        const { node: answerNode, answer, valid } = await answerStage(executor, {
          stage: sweepAnswerStage.name,
          label,
          params: { kind, generation: gen, answer_index: a, chat_model: models.description.chat_model },
          context: contextNode,
          chat: models.chat,
          maxTokens: options.answerMaxTokens,
          inputCap: kind === "full" ? null : cap,
        });
        check.record(executor, label, contextHash);
        await countModels(kind, "chat", answerNode.node);
        const scoreNode = await executor.runStage(sweepScoreStage, {
          label: `score ${row}${tag}`,
          params: { fixture: common.fixture, valid },
          inputs: { answer: answerNode.node.outputs.answer },
          values: { answer },
        }, env);
        const parts: [string, string, unknown][] = [
          ["status", answerNode.node.outputs.status, answerNode.outputs.status],
          ["answer", answerNode.node.outputs.answer, answer],
          ["score", scoreNode.node.outputs.score, scoreNode.outputs.score],
          ["info", contextNode.node.outputs.info, contextNode.outputs.info],
        ];
        for (const [part, hash, value] of parts) {
          aggregateInputs[rowInput(part, row)] = hash;
          aggregateValues[rowInput(part, row)] = value;
        }
      }));
    }));
  }));
  const requested = requestedModels(models.description);
  const answeringModels = Object.fromEntries(
    request.kinds.map((kind) => [kind, tally.of(kind, requested, roles.get(kind)!)]),
  );
  return { aggregateInputs, aggregateValues, contextInputs, contextValues, answeringModels };
}
